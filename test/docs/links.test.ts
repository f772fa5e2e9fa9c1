// Every link in the documents, and every `docs/<file>.md, "Heading"` citation in the documents and
// the code, names a file that exists and, where it names one, a heading that file has: a document
// renamed or a section retitled fails here, not in a reader's hands.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';

const tracked = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && existsSync(join(PROJECT_ROOT, file)));
// Released specs and the history quote what was true then.
const current = tracked.filter((file) => !file.startsWith('docs/releases/') && file !== 'CHANGELOG.md');
const documents = current.filter((file) => file.endsWith('.md'));
const code = current.filter((file) => /\.(ts|mjs|js|sh|sql|yaml|yml|json)$/.test(file) && !file.startsWith('generated/'));

const headingsCache = new Map<string, string[]>();
/** The headings of a Markdown file, as written. */
function headingsOf(file: string): string[] {
  let headings = headingsCache.get(file);
  if (headings === undefined) {
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    headings = [...text.matchAll(/^#{1,6} (.+?)\s*$/gm)].map((match) => match[1]!);
    headingsCache.set(file, headings);
  }
  return headings;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation gone, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const CITATION = /(docs\/[A-Za-z0-9_./-]+\.md),\s*(?:\/\/\s*|#\s*|--\s*|\*\s*)?"([^"]+)"/g;

t.test('every link of the documents leads to a file there is, and a heading it has', async (t) => {
  const broken: string[] = [];
  let links = 0;
  for (const file of documents) {
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(LINK)) {
      if (/^(https?|mailto):/.test(target!)) continue;
      links++;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      if (!existsSync(join(PROJECT_ROOT, resolved))) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && statSync(join(PROJECT_ROOT, resolved)).isFile()) {
        if (!headingsOf(resolved).some((heading) => anchorOf(heading) === anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  t.ok(links > 50, `${links} links read`);
  t.same(broken, []);
});

t.test('every citation of a document, in the documents and the code, names a heading it has', async (t) => {
  const broken: string[] = [];
  let citations = 0;
  for (const file of [...documents, ...code]) {
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
    for (const [, document, heading] of text.matchAll(CITATION)) {
      citations++;
      if (!existsSync(join(PROJECT_ROOT, document!))) broken.push(`${file}: ${document} (no such file)`);
      else if (!headingsOf(document!).includes(heading!)) broken.push(`${file}: ${document}, "${heading}"`);
    }
  }
  t.ok(citations > 5, `${citations} citations read`);
  t.same(broken, []);
});

t.test('every document the code names is there', async (t) => {
  const missing: string[] = [];
  for (const file of code) {
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
    for (const [document] of text.matchAll(/\bdocs\/[A-Za-z0-9_/-]+\.md\b/g))
      if (!existsSync(join(PROJECT_ROOT, document))) missing.push(`${file}: ${document}`);
  }
  t.same(missing, []);
});

t.test('an anchor is made as GitHub makes it', async (t) => {
  t.equal(anchorOf('The `If-Match` header, and 412'), 'the-if-match-header-and-412');
  t.equal(anchorOf('Changes (updatePet, deletePet)'), 'changes-updatepet-deletepet');
});
