// Prints each failed assertion of the tap logs it is given, with the subtests it sits in and tap's
// diagnostics, so that the last lines of a long CI log say what failed and where. Silent when
// nothing failed.
//   node scripts/tap-failures.mjs test-output/tap.log test-output/npm-test-node24.log …
import { existsSync, readFileSync } from 'node:fs';

const DIAGNOSTIC_LINES = 30;
// A test that runs tap itself (the walkthrough's npm test) carries the inner run's TAP in its
// diagnostics, folded: a "not ok" line there can run on for pages.
const LINE_CHARACTERS = 300;

for (const log of process.argv.slice(2)) {
  if (!existsSync(log)) continue;
  const lines = readFileSync(log, 'utf8').split('\n');
  const subtests = []; // subtests[indent] = the name of the subtest open at that indentation
  let lastFailureIndent = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      subtests.length = subtest[1].length;
      subtests[subtest[1].length] = subtest[2];
      continue;
    }
    const failure = /^( *)not ok \d+ (.*)$/.exec(line);
    if (!failure) continue;
    const indent = failure[1].length;
    // A subtest's own "not ok" follows its failed assertions: those were shown already.
    const parent = lastFailureIndent > indent;
    lastFailureIndent = indent;
    if (parent) continue;
    const where = subtests
      .slice(0, indent + 1)
      .filter(Boolean)
      .join(' > ');
    const text = failure[2].length > LINE_CHARACTERS ? `${failure[2].slice(0, LINE_CHARACTERS)}…` : failure[2];
    console.log(`${log}: not ok ${text}\n    in ${where}`);
    if (lines[i + 1]?.trim() !== '---') continue;
    let shown = 0;
    for (let j = i + 1; j < lines.length && lines[j].trim() !== '...'; j++) {
      if (shown++ < DIAGNOSTIC_LINES) console.log(`    ${lines[j].slice(indent)}`);
    }
  }
}
