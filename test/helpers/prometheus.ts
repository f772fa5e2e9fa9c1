// A real Prometheus server for the tests, from Debian's package, on a free port of 127.0.0.1 with a
// configuration and a data directory of its own, stopped and removed on teardown. Assertions go
// through its HTTP query API in PromQL, as an operator's would.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { freePort } from 'throwaway-postgres';

export const PROMETHEUS = process.env['PROMETHEUS_PATH'] ?? '/usr/bin/prometheus';
export const PROMTOOL = process.env['PROMTOOL_PATH'] ?? '/usr/bin/promtool';
// .ci/run sets this: there the Prometheus tests must run, never skip.
const REQUIRED = process.env['REQUIRE_PROMETHEUS_TEST'] === '1';

/** Why the Prometheus tests cannot run here; undefined when they can. Fails the test where they are required. */
export function whyNoPrometheus(t: Test): string | undefined {
  const missing = [PROMETHEUS, PROMTOOL].find((binary) => !existsSync(binary));
  if (missing === undefined) return undefined;
  const why = `no ${missing} (install it with "apt-get install -y prometheus", or set PROMETHEUS_PATH and PROMTOOL_PATH)`;
  if (REQUIRED) t.fail(`the Prometheus tests are required here (REQUIRE_PROMETHEUS_TEST=1) but there is ${why}`);
  else console.error(`# SKIPPED the Prometheus tests: ${why}`);
  return why;
}

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface Prometheus {
  /** An instant query: the vector it returns. */
  query(promql: string): Promise<Sample[]>;
  /** The single value of a query that returns one sample, or undefined when it returns none. */
  value(promql: string): Promise<number | undefined>;
  /** Polls `promql` (every 200 ms, up to 30 s) until its single value is `expected`. */
  until(promql: string, expected: number): Promise<void>;
}

/** Starts Prometheus scraping each target (host:port of a /metrics listener) as job "petstore" every second. */
export async function startPrometheus(t: Test, targets: readonly string[]): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-prometheus-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global: { scrape_interval: 1s, evaluation_interval: 1s }\nscrape_configs:\n  - job_name: petstore\n    static_configs:\n      - targets: ${JSON.stringify(targets)}\n`,
  );
  const child = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${base}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`Prometheus did not become ready: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const query = async (promql: string): Promise<Sample[]> => {
    const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
    return body.data.result.map(({ metric, value }) => ({ labels: metric, value: Number(value[1]) }));
  };
  const value = async (promql: string) => {
    const samples = await query(promql);
    if (samples.length > 1) throw new Error(`${promql} returned ${samples.length} samples`);
    return samples[0]?.value;
  };
  return {
    query,
    value,
    async until(promql, expected) {
      const until = Date.now() + 30_000;
      let last: number | undefined;
      while ((last = await value(promql)) !== expected) {
        if (Date.now() > until) throw new Error(`${promql} stayed ${last}, not ${expected}, for 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
  };
}
