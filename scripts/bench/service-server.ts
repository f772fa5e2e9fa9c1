// The service, built by tsc from src/ exactly as dist/ is (reading the spec as JSON, from the
// dist/openapi.json `npm run build` writes, as npm start does), on the store of scripts/bench/bench-store.ts. With
// REQUEST_LOG=<file>, it logs as `npm start` does (level info, asynchronous destination), into that file. With
// METRICS=1 it records its metrics and serves them as `npm start` does (on a port of their own); with
// OTEL_EXPORTER_OTLP_ENDPOINT it exports spans as `npm start` does. Started by the benchmark
// (scripts/bench/servers.ts); prints {port, rss} when ready.
import { openSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import type { KeySource } from '../../src/auth/bearer-auth.js';
import { keyTableOf } from '../../src/auth/key-table.js';
import { rolesOf } from '../../src/auth/roles.js';
import { createLogDestination } from '../../src/logging/log-destination.js';
import { listenForMetrics } from '../../src/metrics/metrics-server.js';
import { loadSpec } from '../../src/openapi/openapi-spec.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import { benchStore } from './bench-store.js';
import { reportReady } from './seed-pets.js';

const store = await benchStore();
const logFile = process.env['REQUEST_LOG'];
// LOG_DESTINATION=pino: pino's own asynchronous destination (sonic-boom) in place of ours, with the
// same 16 KiB blocks, to measure what ours saves (docs/decisions.md, "Parts we wrote where a library exists").
const destination = (fd: number) =>
  process.env['LOG_DESTINATION'] === 'pino'
    ? pino.destination({ dest: fd, sync: false, minLength: 16 * 1024, maxWrite: 32 * 1024 })
    : createLogDestination(fd);
const logger = logFile === undefined ? false : { level: 'info', stream: destination(openSync(logFile, 'a')) };
const metrics = process.env['METRICS'] === '1' ? createServiceMetrics() : undefined;
if (metrics !== undefined) await listenForMetrics(metrics.registry, '127.0.0.1', 0);
const tracing =
  process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] === undefined
    ? undefined
    : await import('../../src/tracing/otel-tracing.js').then(({ createOtelTracing, exporterFor }) =>
        createOtelTracing({ serviceVersion: 'bench', exporter: exporterFor(process.env) }),
      );
const spec = loadSpec('dist/openapi.json');
// FAIRNESS=1 (scripts/bench/measure-fairness.ts): fair share on, and besides API_KEY the keys of a
// calm client, a flood and a client whose quota (one request an hour) refuses all it sends.
const fairness = process.env['FAIRNESS'] === '1' ? fairnessKeys(spec) : undefined;
// REJECTION_DELAY_MS=0: rejections sent at once, to measure what one costs the service.
const refusalDelay =
  process.env['REJECTION_DELAY_MS'] === undefined
    ? {}
    : { rejectionDelayMs: Number(process.env['REJECTION_DELAY_MS']) };
// Fair share is on, as npm start runs the service (FAIR_SHARE=off turns it off, as there); a client
// alone, as every workload's is, is never refused, so it costs only its bookkeeping.
const fairShare = fairness !== undefined || process.env['FAIR_SHARE'] !== 'off';
const app = await buildApp({
  spec,
  ...refusalDelay,
  fairShare,
  // The bench's key holds every role (completeOrder needs the operator's), as the one-off key of npm start does.
  apiKeys: fairness ?? [{ client: 'bench', key: process.env['API_KEY']!, roles: rolesOf(spec).named }],
  store,
  // The orders measurement places many at once for one client: the cap is not what it measures.
  orderHoldsPerClient: 1000,
  logger,
  ...(metrics === undefined ? {} : { metrics }),
  ...(tracing === undefined ? {} : { tracing }),
});
await app.listen({ host: '127.0.0.1', port: 0 });
reportReady((app.server.address() as AddressInfo).port);
// A clean exit on SIGINT lets `node --cpu-prof` write its profile.
process.once('SIGINT', () => void app.close().then(() => process.exit(0)));

function fairnessKeys(served: typeof spec): KeySource {
  const [calm, flood, limited] = ['CALM_KEY', 'FLOOD_KEY', 'LIMITED_KEY'].map((name) => process.env[name]!);
  const entries = [
    { client: 'bench', key: process.env['API_KEY']!, roles: rolesOf(served).named },
    { client: 'calm', key: calm! },
    { client: 'flood', key: flood! },
    { client: 'limited', key: limited! },
  ];
  return {
    table: keyTableOf(entries, rolesOf(served), {
      clients: new Map([['limited', { requests: 1, windowSeconds: 3600 }]]),
    }),
  };
}
