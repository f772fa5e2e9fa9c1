// The fair-share scenario (src/limits/fair-share.ts), on the in-memory service logging as npm start
// does: a calm client reads pages of 20 one request at a time, alone and then while another client,
// with its own key, floods the service from 64 connections in a process of its own (autocannon's
// command). Reported as ratios from one run: the calm client's p99 under the flood ÷ alone (goal:
// at most 3), its answers a second under the flood ÷ alone, and what a refused request costs the
// service (CPU per answer, a client whose quota refuses everything) ÷ a served `list 20`.
import { randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import autocannon from 'autocannon';
import { flood, type FloodCounts } from './flood.js';
import type { BenchOptions } from './options.js';
import { cpuSeconds, stop, type Server, type Servers } from './servers.js';
import { median, round } from './statistics.js';

const FLOOD_CONNECTIONS = 64;
const PAGE = '/v1/pets?limit=20';

export interface FairnessRound {
  calmAlone: { p99: number; rps: number };
  calmFlooded: { p99: number; rps: number; failed: number };
  flood: FloodCounts;
  refusedCpu: number;
  servedCpu: number;
}

export interface FairnessResult {
  rounds: FairnessRound[];
  p99Ratio: number;
  rpsRatio: number;
  refusalCost: number;
  calmFailed: number;
}

export function createFairnessMeasurement({ duration, rounds }: BenchOptions, { start }: Servers) {
  const keys = { CALM_KEY: key(), FLOOD_KEY: key(), LIMITED_KEY: key() };
  const auth = (name: keyof typeof keys) => ({ authorization: `Bearer ${keys[name]}` });

  /** One request at a time on one kept-alive connection, each timed to the microsecond (autocannon's latencies are whole milliseconds). */
  async function calm(server: Server, seconds: number) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const latencies: number[] = [];
    let failed = 0;
    const until = performance.now() + seconds * 1000;
    try {
      while (performance.now() < until) {
        const started = performance.now();
        const status = await new Promise<number>((resolve, reject) => {
          get({ host: '127.0.0.1', port: server.port, path: PAGE, headers: auth('CALM_KEY'), agent }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode!));
          }).on('error', reject);
        });
        latencies.push(performance.now() - started);
        if (status !== 200) failed += 1;
      }
    } finally {
      agent.destroy();
    }
    latencies.sort((a, b) => a - b);
    return { p99: latencies[Math.floor(latencies.length * 0.99)]!, rps: (latencies.length - failed) / seconds, failed };
  }

  /** CPU per answer while `name`'s requests are loaded from 10 connections. */
  async function cpuPerAnswer(server: Server, name: keyof typeof keys, seconds: number): Promise<number> {
    const before = cpuSeconds(server.pid);
    const result = await autocannon({ url: `http://127.0.0.1:${server.port}${PAGE}`, connections: 10, duration: seconds, headers: auth(name) });
    return (cpuSeconds(server.pid) - before) / (result['2xx'] + result.non2xx);
  }

  /** CPU per answer of a served list 20 and of a refusal, on a server that sends refusals at once (no REFUSAL_DELAY_MS). */
  async function refusalCost(): Promise<{ servedCpu: number; refusedCpu: number }> {
    const server = await start('serviceLogged', 1000, { env: { FAIRNESS: '1', REFUSAL_DELAY_MS: '0', ...keys } });
    try {
      await cpuPerAnswer(server, 'CALM_KEY', 1);
      const servedCpu = await cpuPerAnswer(server, 'CALM_KEY', duration);
      const refusedCpu = await cpuPerAnswer(server, 'LIMITED_KEY', duration);
      return { servedCpu, refusedCpu };
    } finally {
      await stop(server);
    }
  }

  async function oneRound(): Promise<FairnessRound> {
    const server = await start('serviceLogged', 1000, { env: { FAIRNESS: '1', ...keys } });
    try {
      await calm(server, 1);
      const calmAlone = await calm(server, duration);
      // The flood starts first and ends last, so that the calm client is measured inside it.
      const flooding = flood(`http://127.0.0.1:${server.port}${PAGE}`, auth('FLOOD_KEY').authorization, Math.ceil(duration) + 2, FLOOD_CONNECTIONS);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const calmFlooded = await calm(server, duration);
      const floodCounts = await flooding;
      return { calmAlone, calmFlooded, flood: floodCounts, ...(await refusalCost()) };
    } finally {
      await stop(server);
    }
  }

  async function measureFairness(): Promise<FairnessResult> {
    const done: FairnessRound[] = [];
    for (let index = 0; index < Math.min(rounds, 3); index++) done.push(await oneRound());
    return {
      rounds: done,
      p99Ratio: median(done.map((one) => one.calmFlooded.p99 / one.calmAlone.p99)),
      rpsRatio: median(done.map((one) => one.calmFlooded.rps / one.calmAlone.rps)),
      refusalCost: median(done.map((one) => one.refusedCpu / one.servedCpu)),
      calmFailed: done.reduce((sum, one) => sum + one.calmFlooded.failed, 0),
    };
  }

  /** The scenario's table (markdown), each round a row, and the ratios. */
  function fairnessReport(result: FairnessResult): string {
    const rows = result.rounds.map((one, index) =>
      [
        index + 1,
        round(one.calmAlone.p99, 2),
        round(one.calmFlooded.p99, 2),
        round(one.calmAlone.rps),
        round(one.calmFlooded.rps),
        one.calmFlooded.failed,
        round(one.flood.answered),
        round(one.flood.refused),
        round(one.servedCpu * 1e6, 1),
        round(one.refusedCpu * 1e6, 1),
      ].join(' | '),
    );
    return [
      `Fair share: a calm client (one request at a time, \`GET ${PAGE}\`, 1,000 pets, request logs on) alone for ${duration} s, then for ${duration} s inside a flood of the same reads from another key (${FLOOD_CONNECTIONS} connections, autocannon in a process of its own); then, on a server that sends refusals at once (the service waits REFUSAL_DELAY_MS first), CPU per answer from 10 connections of a served \`list 20\` and of a client whose quota refuses every request. ${result.rounds.length} rounds, fresh processes; the ratios are medians.`,
      '',
      '| round | calm p99 alone ms | calm p99 flooded ms | calm req/s alone | calm req/s flooded | calm failed | flood 2xx | flood 429 | CPU µs served list 20 | CPU µs refused |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((row) => `| ${row} |`),
      '',
      `Calm p99 flooded ÷ alone: **${result.p99Ratio.toFixed(2)}** (goal: at most 3); calm answers a second flooded ÷ alone: **${result.rpsRatio.toFixed(2)}**; calm requests failed: **${result.calmFailed}**; a refusal's CPU ÷ a served list 20: **${result.refusalCost.toFixed(2)}**.`,
    ].join('\n');
  }

  return { measureFairness, fairnessReport };
}

function key(): string {
  return randomBytes(24).toString('base64url');
}
