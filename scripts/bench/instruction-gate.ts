// The instruction gate (issue 58), run by `npm run test:all` (and so CI) and `npm run bench -- gate`:
// the service as shipped (request logs into a file, metrics and fair share on) against the
// hand-written fastify app, each counted under valgrind's callgrind in fresh processes, per
// workload of the comparison. Instructions, not CPU time: a count does not move with what else the
// machine is doing. A workload whose ratio passes its bound in scripts/bench/instruction-bounds.json
// fails the gate, naming the workload and both figures. Raising a bound is a commit of its own that
// says what the extra cost buys (docs/performance/hand-written.md, "The instruction gate").
//   npm run bench -- gate
//   npm run bench -- gate --workloads get --rounds 1 --recounts 2 --service-env NAME=VALUE --bounds FILE
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { createCounter } from './instructions.js';
import { createLoads } from './load.js';
import { countingOptions } from './options.js';
import { createServers } from './servers.js';
import { workloadsFor, type Workload } from './workloads.js';

const BOUNDS_FILE = 'scripts/bench/instruction-bounds.json';
/** The workloads the hand-written app serves, as the comparison names them. */
const GATED = ['list 20', 'list 100, 1% status', 'get random id', 'create'];
const PETS = 1000;

const { values } = parseArgs({
  options: {
    workloads: { type: 'string' },
    // Each count follows 16 times as many requests to warm up: fewer, and V8 is still compiling.
    requests: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '1' },
    recounts: { type: 'string', default: '2' },
    'service-env': { type: 'string', multiple: true, default: [] },
    bounds: { type: 'string', default: join(PROJECT_ROOT, BOUNDS_FILE) },
  },
});
const boundsFile = values.bounds;
// Per major version of Node: V8's code for the same JavaScript differs between them, so do the counts.
const major = process.versions.node.split('.')[0]!;
const bounds = (JSON.parse(readFileSync(boundsFile, 'utf8')) as Record<string, Record<string, number>>)[major];
if (bounds === undefined) {
  console.error(
    `instruction gate: no bounds for Node ${major} in ${boundsFile}: run npm run bench -- gate on it and add them`,
  );
  process.exit(1);
}
const wanted =
  values.workloads === undefined
    ? GATED
    : GATED.filter((name) => values.workloads!.split(',').some((part) => name.includes(part)));
const serviceEnv = Object.fromEntries(
  values['service-env'].map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) {
      console.error(`bench:gate: --service-env takes NAME=VALUE, not ${pair}`);
      process.exit(2);
    }
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

const options = countingOptions(PETS, values.requests, values.rounds);
const servers = createServers(options);
const workloads = workloadsFor(options, servers.AUTH);
const gated = wanted.map((name) => workloads.WORKLOADS.find((workload) => workload.name === name)!);
const counter = createCounter(options, servers, createLoads(options, servers.AUTH), workloads);

// A workload over its bound after the rounds is counted again, in fresh processes, up to this many
// more rounds (--recounts): a regression stays over, a process that settled in a dear V8 mode does not.
const RECOUNTS = Number(values.recounts);
const dir = mkdtempSync(join(tmpdir(), 'bench-gate-'));
const lowest = { shipped: gated.map(() => Infinity), handWritten: gated.map(() => Infinity) };
const ratioAt = (at: number) => lowest.shipped[at]! / lowest.handWritten[at]!;
const overBound = () => gated.filter(({ name }, at) => bounds[name] !== undefined && ratioAt(at) > bounds[name]);

/** One round: each server in a fresh process, side by side (valgrind keeps each to one core). */
async function countRound(counted: Workload[]): Promise<void> {
  const [shipped, handWritten] = await Promise.all([
    counter.countInstructionsOf(dir, 'serviceMetrics', counted, { pets: PETS, env: serviceEnv }),
    counter.countInstructionsOf(dir, 'handWritten', counted, { pets: PETS }),
  ]);
  // The lowest of the rounds: a process may settle for its life in a V8 mode that costs ~30,000
  // instructions a request more (docs/performance.md), in either server.
  counted.forEach((workload, position) => {
    const at = gated.indexOf(workload);
    lowest.shipped[at] = Math.min(lowest.shipped[at]!, shipped[position]!);
    lowest.handWritten[at] = Math.min(lowest.handWritten[at]!, handWritten[position]!);
  });
}

try {
  for (let round = 0; round < options.instructionRounds; round++) await countRound(gated);
  for (let recount = 1; recount <= RECOUNTS && overBound().length > 0; recount++) {
    console.error(
      `instruction gate: ${overBound()
        .map(({ name }) => name)
        .join(', ')} over the bound: counting again (${recount} of ${RECOUNTS})`,
    );
    await countRound(overBound());
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const format = (count: number) => Math.round(count).toLocaleString('en-US');
const failures: string[] = [];
console.log('| workload | as shipped | hand-written | ratio | bound |');
console.log('|---|---:|---:|---:|---:|');
gated.forEach(({ name }, at) => {
  const shipped = lowest.shipped[at]!;
  const handWritten = lowest.handWritten[at]!;
  const ratio = ratioAt(at);
  const bound = bounds[name];
  console.log(`| ${name} | ${format(shipped)} | ${format(handWritten)} | ${ratio.toFixed(3)} | ${bound ?? 'none'} |`);
  if (bound === undefined) failures.push(`${name}: no bound for Node ${major} in ${boundsFile}`);
  else if (ratio > bound)
    failures.push(
      `${name}: as shipped ${format(shipped)} instructions per request, hand-written ${format(handWritten)}: ` +
        `${ratio.toFixed(3)}×, above its bound ${bound}× for Node ${major} (${boundsFile})`,
    );
});
for (const failure of failures) console.error(`instruction gate: ${failure}`);
process.exit(failures.length === 0 ? 0 : 1);
