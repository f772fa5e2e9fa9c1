// The PostgreSQL store as a running service uses it: the schema is brought up to date in the
// background, retried with growing delays while the database cannot be reached (an instance may
// start before its database), and until then every operation responds with 503 and readiness says no.
// Once it is current, the instance writes its heartbeat (instances.ts), so that quotas are divided
// among the live instances.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
import type { PetStore } from '../pet-store.js';
import { wrapStore } from '../wrap-store.js';
import { HEARTBEAT_MS, startInstanceHeartbeat, type Instances } from './instances.js';
import { createPostgresPetStore } from './postgres-pet-store.js';
import type { KeyAdoption } from './key-records.js';
import { migrate } from './migrate.js';
import type { ReplicaOptions, ReplicaView } from './replicas.js';
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
  /** The most creates, or changes without a key, one statement writes. */
  maxWriteBatch?: number;
  /** Told of the pool once it is made (its connection counts, for metrics). */
  observePool?: (pool: pg.Pool) => void;
  /** The keys whose records made under their digest move to their client's scope before the store serves. */
  keyAdoptions?: () => readonly KeyAdoption[];
  /** Streaming replicas that serve reads (DATABASE_READ_URLS). */
  replicas?: ReplicaOptions | undefined;
}

const PURGE_EVERY_MS = 5 * 60_000;

export interface StartedPostgresStore extends PetStore {
  /** The live instances on this database, this one included (1 until the schema is current). */
  instances(): number;
  ready(): Promise<boolean>;
  close(): Promise<void>;
  /** Settles once the schema is current (or the store is closed first). */
  migrated: Promise<void>;
  /** The replicas as this instance sees them. */
  replicas(): ReplicaView[];
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
    maxWriteBatch,
    observePool,
    keyAdoptions,
    replicas,
  }: StartOptions,
): StartedPostgresStore {
  const store = createPostgresPetStore(config, {
    onPoolError: (error) =>
      log.warn({ reason: error.message }, 'a database connection was lost; the pool will open another'),
    ...(retentionMs === undefined ? {} : { retentionMs }),
    ...(maxWriteBatch === undefined ? {} : { maxWriteBatch }),
    instrument,
    replicas,
  });
  observePool?.(store.pool);
  let heartbeat: Instances | undefined;
  let epochTimer: NodeJS.Timeout | undefined;
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
        // Before the instance serves, so that no retry it is sent misses a record made before 1.5.0.
        const adopted = keyAdoptions === undefined ? 0 : await store.adoptKeyRecords(keyAdoptions());
        if (adopted > 0) log.info({ adopted }, "moved Idempotency-Key records to their clients' scopes");
        await store.readEpoch();
        current = true;
        heartbeat = startInstanceHeartbeat(store.pool);
        // A failover or a restore under a running instance changes the epoch: noticed within a beat.
        epochTimer = setInterval(() => void store.readEpoch().catch(() => undefined), HEARTBEAT_MS).unref();
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
  // What the gate holds back: every operation but those it responds itself (readiness, closing).
  const {
    pool: _pool,
    purgeExpiredKeys: _purge,
    adoptKeyRecords: _adopt,
    ready: _ready,
    close: _close,
    epoch,
    writePosition,
    replicas: replicaViews,
    readEpoch: _readEpoch,
    ...operations
  } = store;
  const gated: Omit<PetStore, 'epoch' | 'writePosition'> = wrapStore(
    () => operations,
    () => (call) => (current ? call() : unavailable()),
  );
  return {
    ...gated,
    epoch,
    writePosition,
    replicas: replicaViews,
    instances: () => heartbeat?.count() ?? 1,
    ready: async () => current && (await store.ready()),
    migrated,
    async close() {
      closing.abort();
      clearInterval(purgeTimer);
      clearInterval(epochTimer);
      await migrated;
      await purging;
      await heartbeat?.close();
      await store.close();
    },
  };
}
