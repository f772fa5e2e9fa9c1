// Pets in PostgreSQL, for deployments of many stateless instances on one database. Every operation
// is one statement, so one round trip and one transaction; creates, changes and order operations
// that arrive together share one (a batch). Each concern keeps its statements beside it:
// pet-reads, pet-creates, pet-changes, event-feed, webhook-deliveries, key-records and orders;
// statement.ts runs them, batch-queue.ts batches them, replicas.ts sends reads to a replica fresh
// enough. Every write's statement answers with its position (sql/functions/store-position.sql).
import type pg from 'pg';
import { DEFAULT_RETENTION_MS, type IdempotencyKey } from '../../idempotency/idempotency-key.js';
import type { NewPet, PetId, PetPatch } from '../../types/api.js';
import type { ChangeKey, PetStore, Precondition } from '../pet-store.js';
import { createBatchQueue, DEFAULT_WRITE_BATCH_MAX } from './batch-queue.js';
import { createEventFeed, FEED_STATEMENTS } from './event-feed.js';
import { createKeyAdoption, createKeyPurge, KEY_STATEMENTS, type KeyAdoption } from './key-records.js';
import { createOrders, ORDER_STATEMENTS, orderWriter } from './orders.js';
import { CHANGE_STATEMENTS, changeWriter } from './pet-changes.js';
import { CREATE_STATEMENTS, createWriter } from './pet-creates.js';
import { createReads, READ_STATEMENTS } from './pet-reads.js';
import { createPool } from './pool.js';
import { createReadRouter, type ReadRouter, type ReplicaOptions } from './replicas.js';
import type { StatementInstrument } from './statement-instrument.js';
import { createStatements, withRows, type Statement, type Statements } from './statement.js';
import { createDeliveryLedger, DELIVERY_STATEMENTS } from './webhook-deliveries.js';
import { createWebhookEndpoints, ENDPOINT_STATEMENTS } from './webhook-endpoints.js';

/** Every statement of the store, by name in the code (their `name` is what metrics call them). */
export const STATEMENTS = {
  ...READ_STATEMENTS,
  ...CREATE_STATEMENTS,
  ...CHANGE_STATEMENTS,
  ...FEED_STATEMENTS,
  ...DELIVERY_STATEMENTS,
  ...ENDPOINT_STATEMENTS,
  ...KEY_STATEMENTS,
  ...ORDER_STATEMENTS,
};

export interface PostgresPetStore extends PetStore {
  /** The pool, for migrations. */
  pool: pg.Pool;
  /** Reads the store's epoch (what epoch() returns from then on): call it once the schema is current. */
  readEpoch(): Promise<string>;
  /** Deletes the idempotency keys older than the retention period; how many it deleted. */
  purgeExpiredKeys(): Promise<number>;
  /** Moves the key records made under API keys' digests to their clients' scopes (key-records.ts). */
  adoptKeyRecords(adoptions: readonly KeyAdoption[]): Promise<number>;
  /** The replicas as this instance sees them (metrics). */
  replicas: ReadRouter['replicas'];
  /** Whether the database responds and holds the schema. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export interface PostgresStoreOptions {
  /** Told about errors of idle connections (the database went away); they never crash the process. */
  onPoolError?: (error: Error) => void;
  /** How long an idempotency key is kept at least (it is purged by purgeExpiredKeys after that). */
  retentionMs?: number;
  /** Wraps every statement of an operation (metrics, spans). */
  instrument?: StatementInstrument | undefined;
  /** The most creates, changes or order operations one statement writes; 1 writes each on its own, as they arrive. */
  maxWriteBatch?: number;
  /** How long a create or change may wait for the batches ahead of it (DATABASE_TIMEOUT_MS). */
  maxWriteWaitMs?: number;
  /** Streaming replicas that serve reads (DATABASE_READ_URLS); none: every read on the primary. */
  replicas?: ReplicaOptions | undefined;
}

/**
 * `statements`, noting the position each write's statement answers with: the newest is at or after
 * every write this store acknowledged, so a write's answer can report it once the write returns.
 */
function notingPositions(statements: Statements): { statements: Statements; newest: () => number } {
  let newest = 0;
  const run = async <Row extends pg.QueryResultRow>(statement: Statement, values: unknown[]) => {
    const result = await statements.run<Row>(statement, values);
    // A write answers with a position in its first row; one that found nothing answers with no row.
    const position = result.rows[0]?.['position'] as number | undefined;
    if (position !== undefined) newest = Math.max(newest, Number(position));
    return result;
  };
  return { statements: withRows(run), newest: () => newest };
}

export function createPostgresPetStore(
  config: pg.PoolConfig,
  {
    /* c8 ignore next -- for callers that do not watch the pool; the service's (start.ts) logs the loss */
    onPoolError = () => undefined,
    retentionMs = DEFAULT_RETENTION_MS,
    instrument,
    maxWriteBatch = DEFAULT_WRITE_BATCH_MAX,
    // As long as one statement may take: a write waits no longer for others' than for its own.
    maxWriteWaitMs = config.query_timeout ?? 2000,
    replicas,
  }: PostgresStoreOptions = {},
): PostgresPetStore {
  const pool = createPool(config, onPoolError);
  const statements = createStatements(pool, instrument);
  const reads = createReadRouter({ pool, statements }, FEED_STATEMENTS.position, replicas, { instrument, onPoolError });
  const writes = notingPositions(statements);
  const batching = { maxBatch: maxWriteBatch, maxWaitMs: maxWriteWaitMs, keepContext: instrument !== undefined };
  const submitCreate = createBatchQueue(createWriter(writes.statements), batching);
  const submitChange = createBatchQueue(changeWriter(writes.statements), batching);
  const submitOrder = createBatchQueue(orderWriter(writes.statements), batching);
  return {
    pool,
    ...createReads(reads),
    async create(pet: NewPet) {
      return (await submitCreate({ pet, key: undefined })).pet;
    },
    createOnce: (pet: NewPet, key: IdempotencyKey) => submitCreate({ pet, key }),
    update: (id: PetId, patch: PetPatch, precondition: Precondition, key?: ChangeKey) =>
      submitChange({ kind: 'update', id, patch, precondition, key }),
    remove: (id: PetId, precondition: Precondition, key?: ChangeKey) =>
      submitChange({ kind: 'remove', id, patch: {}, precondition, key }),
    ...createEventFeed(statements, reads, pool),
    writePosition: writes.newest,
    replicas: reads.replicas,
    deliveries: createDeliveryLedger(statements),
    webhookEndpoints: createWebhookEndpoints(statements),
    orders: createOrders(statements, reads, submitOrder),
    purgeExpiredKeys: createKeyPurge(statements, retentionMs),
    adoptKeyRecords: createKeyAdoption(statements),
    async ready() {
      try {
        await pool.query(READ_STATEMENTS.ready.text);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await reads.close();
      await pool.end();
    },
  };
}
