// The entry point: reads the environment, picks the store, listens, and closes gracefully on
// SIGTERM/SIGINT.
import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import closeWithGrace from 'close-with-grace';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { buildApp } from './app.js';
import { readConfig, type DatabaseConfig } from './config.js';
import { createLogDestination } from './logging/log-destination.js';
import { createMemoryPetStore } from './store/memory-pet-store.js';
import type { PetStore } from './store/pet-store.js';
import { poolConfigOf } from './store/postgres/pool-config.js';
import { startPostgresStore } from './store/postgres/start.js';

export const ONE_OFF_KEY_FILE = '.api-key';

async function main() {
  const config = readConfig(process.env);
  // What is still buffered is written out synchronously when the process exits, however it exits (but SIGKILL).
  const stream = createLogDestination(1);
  process.once('exit', () => stream.flushSync());
  const log = pino({ level: config.logLevel, redact: ['req.headers.authorization'] }, stream) as FastifyBaseLogger;

  const oneOffKeyFile = config.apiKeys === undefined ? resolve(ONE_OFF_KEY_FILE) : undefined;
  const apiKeys = config.apiKeys ?? [await writeOneOffKey(oneOffKeyFile!)];
  const retentionMs = config.idempotencyRetentionMs;
  const store = config.database === undefined ? createMemoryPetStore({ retentionMs }) : postgresStore(config.database, log, retentionMs);
  log.info(config.database === undefined ? 'pets are kept in memory (DATABASE_URL is not set)' : `pets are kept in PostgreSQL at ${where(config.database.url)}`);

  const app = await buildApp({ apiKeys, loggerInstance: log, store });
  if (oneOffKeyFile !== undefined) {
    app.log.warn(`API_KEYS is not set: generated a one-off API key for this run only, in ${oneOffKeyFile}`);
  }

  closeWithGrace({ delay: 10_000, logger: app.log }, async ({ signal, err }) => {
    if (err !== undefined) app.log.error({ err }, 'closing after an unexpected error');
    else app.log.info({ signal }, 'closing gracefully: finishing requests in flight');
    await app.close();
    await store.close?.();
  });
  await app.listen({ host: config.host, port: config.port });
}

function postgresStore(database: DatabaseConfig, log: FastifyBaseLogger, retentionMs: number): PetStore & { close(): Promise<void> } {
  return startPostgresStore(poolConfigOf(database), { log, retentionMs });
}

/** Host, port and database of a connection string: never its user or password. */
function where(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  return `${hostname}${port === '' ? '' : `:${port}`}${pathname}`;
}

// A fresh random key each start: usable locally, useless to anyone who cannot read the file.
async function writeOneOffKey(file: string): Promise<string> {
  const key = randomBytes(32).toString('base64url');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return key;
}

main().catch((error: Error) => {
  console.error(`petstore: cannot start: ${error.message}`);
  process.exit(1);
});
