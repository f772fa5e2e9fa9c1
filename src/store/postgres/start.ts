// The PostgreSQL store as a running service uses it: the schema is brought up to date in the
// background, retried with growing delays while the database cannot be reached (an instance may
// start before its database), and until then every operation answers 503 and readiness says no.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
import type { PetStore } from '../pet-store.js';
import { createPostgresPetStore } from './postgres-pet-store.js';
import { migrate } from './migrate.js';
import type { StatementInstrument } from './statement-instrument.js';

export interface StartOptions {
  log: FastifyBaseLogger;
  firstRetryMs?: number;
  maxRetryMs?: number;
  /** How long idempotency keys are kept at least. */
  retentionMs?: number;
  /** How often expired idempotency keys are purged: a key lives at most retention + this. */
  purgeEveryMs?: number;
  /** Wraps every statement of an operation (metrics, spans). */
  instrument?: StatementInstrument | undefined;
  /** The most creates one statement writes. */
  maxCreateBatch?: number;
}

const PURGE_EVERY_MS = 5 * 60_000;

export interface StartedPostgresStore extends PetStore {
  /** The pool, for its connection counts. */
  pool: pg.Pool;
  ready(): Promise<boolean>;
  close(): Promise<void>;
  /** Settles once the schema is current (or the store is closed first). */
  migrated: Promise<void>;
}

export function startPostgresStore(
  config: pg.PoolConfig,
  {
    log,
    firstRetryMs = 250,
    maxRetryMs = 5000,
    retentionMs,
    purgeEveryMs = PURGE_EVERY_MS,
    instrument,
    maxCreateBatch,
  }: StartOptions,
): StartedPostgresStore {
  const store = createPostgresPetStore(config, {
    onPoolError: (error) =>
      log.warn({ reason: error.message }, 'a database connection was lost; the pool will open another'),
    ...(retentionMs === undefined ? {} : { retentionMs }),
    ...(maxCreateBatch === undefined ? {} : { maxCreateBatch }),
    instrument,
  });
  // Every instance purges on its own timer; their batches skip each other's locked rows. A failure
  // (the database away) is only logged: the next round catches up.
  let purging: Promise<void> = Promise.resolve();
  const purge = () => {
    purging = store.purgeExpiredKeys().then(
      (purged) => void (purged > 0 && log.info({ purged }, 'purged expired idempotency keys')),
      (error: Error) =>
        log.warn({ reason: error.message }, 'cannot purge expired idempotency keys now; retrying later'),
    );
  };
  let current = false;
  const purgeTimer = setInterval(() => current && purge(), purgeEveryMs).unref();
  const closing = new AbortController();
  const migrated = (async () => {
    for (let delay = firstRetryMs; !closing.signal.aborted; delay = Math.min(delay * 2, maxRetryMs)) {
      try {
        const applied = await migrate(store.pool);
        current = true;
        log.info({ applied }, 'the database schema is current');
        purge();
        return;
      } catch (error) {
        log.warn(
          { reason: (error as Error).message, retryInMs: delay },
          'cannot bring the database schema up to date yet; retrying',
        );
        await sleep(delay, undefined, { signal: closing.signal }).catch(() => undefined);
      }
    }
  })();
  const unavailable = () => Promise.reject(new ServiceUnavailable());
  return {
    pool: store.pool,
    create: (pet) => (current ? store.create(pet) : unavailable()),
    createOnce: (pet, key) => (current ? store.createOnce(pet, key) : unavailable()),
    get: (id) => (current ? store.get(id) : unavailable()),
    list: (options) => (current ? store.list(options) : unavailable()),
    update: (id, patch, precondition, key) => (current ? store.update(id, patch, precondition, key) : unavailable()),
    remove: (id, precondition, key) => (current ? store.remove(id, precondition, key) : unavailable()),
    listEvents: (after, limit) => (current ? store.listEvents(after, limit) : unavailable()),
    purgeEvents: (olderThanMs) => (current ? store.purgeEvents(olderThanMs) : unavailable()),
    deliveries: {
      claim: (endpoint, owner, leaseMs) => (current ? store.deliveries.claim(endpoint, owner, leaseMs) : unavailable()),
      record: (endpoint, owner, state, leaseMs) =>
        current ? store.deliveries.record(endpoint, owner, state, leaseMs) : unavailable(),
      release: (endpoint, owner) => (current ? store.deliveries.release(endpoint, owner) : unavailable()),
    },
    ready: async () => current && (await store.ready()),
    migrated,
    async close() {
      closing.abort();
      clearInterval(purgeTimer);
      await migrated;
      await purging;
      await store.close();
    },
  };
}
