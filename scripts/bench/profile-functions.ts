// npm run bench -- profile: where a request's instructions go, function by function, in the servers
// of the comparison with the hand-written app (docs/performance/hand-written.md, "What each part costs"). Each
// server runs under valgrind's callgrind with V8's perf map (--perf-basic-prof), counted as the
// instruction gate counts (1,000 pets, the requests after 16 times as many to warm up); a table per
// pair of servers in the order given gives the functions whose own instructions per request differ
// most between the two (`--servers hand-written,bare,logs-off,shipped`: what spec-first, then
// metrics and fair share, then request logs add). About half a minute per server.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { COMPILER, selfInstructions } from './callgrind-functions.js';
import { createCounter } from './instructions.js';
import { createLoads } from './load.js';
import { countingOptions } from './options.js';
import { createServers, type ServerName } from './servers.js';
import { workloadsFor } from './workloads.js';

const PETS = 1000;
/** What each name of --servers starts (scripts/bench/servers.ts). */
const SERVERS: Record<string, ServerName> = {
  'hand-written': 'handWritten',
  'hand-written-logger': 'handWrittenLogged',
  bare: 'serviceBare',
  'logs-off': 'serviceQuiet',
  shipped: 'serviceMetrics',
};

const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: 'get random id' },
    servers: { type: 'string', default: 'hand-written,bare' },
    requests: { type: 'string', default: '1000' },
    top: { type: 'string', default: '25' },
  },
});
const names = values.servers.split(',');
const unknown = names.filter((name) => SERVERS[name] === undefined);
if (unknown.length > 0 || names.length < 2) {
  console.error(
    `bench:profile: --servers takes two or more of ${Object.keys(SERVERS).join(', ')}` +
      (unknown.length > 0 ? `, not ${unknown.join(', ')}` : ''),
  );
  process.exit(2);
}
const options = countingOptions(PETS, values.requests);
const servers = createServers(options);
const workloads = workloadsFor(options, servers.AUTH);
const workload = workloads.WORKLOADS.find(({ name }) => name === values.workload);
if (workload === undefined) {
  console.error(
    `bench:profile: no workload ${values.workload}; one of ${workloads.WORKLOADS.map(({ name }) => name).join(', ')}`,
  );
  process.exit(2);
}
const counter = createCounter(options, servers, createLoads(options, servers.AUTH), workloads);
const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));

/** One server's instructions per request by function, counted in a fresh process. */
async function profileOf(name: ServerName): Promise<Map<string, number>> {
  // The perf map goes to /tmp/perf-<pid>.map; V8's own log, which the map turns on, into this run's directory.
  const flags = ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(dir, 'v8.log')}`];
  const [perRequest] = await counter.countInstructionsOf(dir, name, [workload!], { pets: PETS, nodeFlags: flags });
  // The count's dump: the last one that process wrote (callgrind numbers them: <name>.<pid>.<n>).
  const dump = readdirSync(dir)
    .filter((file) => new RegExp(`^${name}\\.\\d+\\.\\d+$`).test(file))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
    .pop()!;
  const pid = dump.split('.')[1]!;
  const map = `/tmp/perf-${pid}.map`;
  const text = readFileSync(join(dir, dump), 'utf8');
  const total = Number(/^summary: (\d+)/m.exec(text)![1]);
  const responded = total / perRequest!;
  const functions = selfInstructions(text, readFileSync(map, 'utf8'));
  rmSync(map, { force: true });
  return new Map([...functions].map(([function_, count]) => [function_, count / responded]));
}

try {
  const profiles: Map<string, number>[] = [];
  // One at a time: a count holds the work done on timers, which grows with the wall time a request takes.
  for (const name of names) profiles.push(await profileOf(SERVERS[name]!));
  const sum = (profile: Map<string, number>, compiler: boolean) =>
    [...profile].reduce((total, [name, count]) => total + ((name === COMPILER) === compiler ? count : 0), 0);
  const format = (count: number) => Math.round(count).toLocaleString('en-US');
  console.log(
    `Instructions per request, ${values.workload}, ${PETS} pets (${values.requests} requests after ${16 * Number(values.requests)}; callgrind with --perf-basic-prof)`,
  );
  console.log('');
  console.log(`| server | all | ${COMPILER} | the rest |`);
  console.log('|---|---:|---:|---:|');
  profiles.forEach((profile, index) =>
    console.log(
      `| ${names[index]} | ${format(sum(profile, false) + sum(profile, true))} | ${format(sum(profile, true))} | ${format(sum(profile, false))} |`,
    ),
  );
  profiles.slice(1).forEach((other, index) => {
    const before = profiles[index]!;
    const rows = [...new Set([...before.keys(), ...other.keys()])]
      .filter((name) => name !== COMPILER)
      .map((name) => ({ name, from: before.get(name) ?? 0, to: other.get(name) ?? 0 }))
      .sort((a, b) => Math.abs(b.to - b.from) - Math.abs(a.to - a.from))
      .slice(0, Number(values.top));
    console.log('');
    console.log(`| function | ${names[index]} | ${names[index + 1]} | difference |`);
    console.log('|---|---:|---:|---:|');
    for (const { name, from, to } of rows)
      console.log(`| \`${name.replaceAll('|', '\\|')}\` | ${format(from)} | ${format(to)} | ${format(to - from)} |`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
