// The service, built by tsc from src/ exactly as dist/ is (with the spec as JSON beside it, as
// `npm run build` writes it), on the store of scripts/bench/bench-store.ts. With REQUEST_LOG=<file>, it logs as
// `npm start` does (level info, asynchronous destination), into that file.
// Started by scripts/bench.ts; prints {port, rss} when ready.
import { openSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.js';
import { createLogDestination } from '../../src/logging/log-destination.js';
import { benchStore } from './bench-store.js';
import { reportReady } from './seed-pets.js';

const store = await benchStore();
const logFile = process.env['REQUEST_LOG'];
const logger = logFile === undefined ? false : { level: 'info', stream: createLogDestination(openSync(logFile, 'a')) };
const app = await buildApp({ apiKeys: [process.env['API_KEY']!], store, logger });
await app.listen({ host: '127.0.0.1', port: 0 });
reportReady((app.server.address() as AddressInfo).port);
// A clean exit on SIGINT lets `node --cpu-prof` write its profile.
process.once('SIGINT', () => void app.close().then(() => process.exit(0)));
