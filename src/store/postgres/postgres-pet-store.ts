// Pets in PostgreSQL, for deployments of many stateless instances on one database. Every operation
// is one statement, so one round trip; creates that arrive together share one (a batch), and a
// create is committed (on disk, with PostgreSQL's default synchronous_commit) before it is answered.
import pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
import { DEFAULT_RETENTION_MS, type IdempotencyKey } from '../../idempotency/idempotency-key.js';
import type { NewPet, Pet, PetId, PetStatus } from '../../types/api.js';
import { exactInteger } from '../../validation/int64.js';
import type { CreatedOnce, ListOptions, PetPage, PetStore } from '../pet-store.js';
import { createBatchQueue } from './batch-queue.js';
import type { StatementInstrument } from './statement-instrument.js';
import { isUnavailable } from './unavailable.js';

const INT8 = 20;

interface PetRow {
  id: PetId;
  name: string;
  category_id: PetId;
  status: PetStatus | null;
}

interface CreatedRow extends PetRow {
  replayed: boolean;
}

/** One create waiting for its batch: its pet, and its Idempotency-Key when it sent one. */
interface Creation {
  pet: NewPet;
  key: IdempotencyKey | undefined;
}

const COLUMNS = 'id, name, category_id, status';
// The first half of the two-integer advisory lock key of the create lock: "pets" as ASCII.
const ID_ORDER_LOCK_SPACE = 0x7065_7473;

/** The statement of each operation; the named ones are prepared once per connection. */
export const STATEMENTS = {
  // Creates are written in batches (batch-queue.ts): one statement, so one transaction and one
  // commit, for every create of a batch. Batches take their ids and commit one at a time, under a
  // transaction-level advisory lock taken before the identity's nextval: so commits come in id
  // order, and a page that shows an id shows every smaller id there will ever be. Without it, a
  // batch holding id 4 could commit after the one holding 5, and a client that had paged past 5
  // would never see 4. The key is the table's oid in the two-integer key space, so services in
  // other schemas of the database do not wait.
  //
  // A batch of one (every create when the service is not busy) is written by this single-row
  // statement: the array form below costs a lone create about 5% more latency (docs/performance.md).
  create: {
    name: 'create-pet',
    text: `WITH in_id_order AS MATERIALIZED (SELECT pg_advisory_xact_lock(${ID_ORDER_LOCK_SPACE}, 'pets'::regclass::oid::int))
      INSERT INTO pets (name, category_id, status) SELECT $1, $2, $3 FROM in_id_order RETURNING ${COLUMNS}, false AS replayed`,
  },
  // A batch of several, in the order they were sent.
  createPets: {
    name: 'create-pets',
    text: `WITH in_id_order AS MATERIALIZED (SELECT pg_advisory_xact_lock(${ID_ORDER_LOCK_SPACE}, 'pets'::regclass::oid::int)),
      new_pets AS MATERIALIZED (
        SELECT nextval('pets_id_seq'::regclass) AS id, sent.name, sent.category_id, sent.status, sent.ord
        FROM in_id_order, unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS sent(name, category_id, status, ord)
      ), inserted AS (
        INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE SELECT id, name, category_id, status FROM new_pets
      )
      SELECT ${COLUMNS}, false AS replayed FROM new_pets ORDER BY ord`,
  },
  // A lone create with an Idempotency-Key: a key recorded before this statement began is replayed
  // without taking the lock or an id. Otherwise the key and the pet are inserted together, under
  // the same id-order lock. A retry sent while the first request with its key is under way (in a
  // batch of this instance or another) waits, on the lock and then on the key's row, until that
  // one commits; ON CONFLICT then returns the first request's record, and only the id this
  // statement took is lost (a gap, as the spec allows).
  createOnce: {
    name: 'create-pet-once',
    text: `WITH recorded AS MATERIALIZED (
        SELECT pet_id, name, category_id, status FROM idempotency_keys WHERE scope = $4::bytea AND key = $5::text
      ), in_id_order AS MATERIALIZED (
        SELECT pg_advisory_xact_lock(${ID_ORDER_LOCK_SPACE}, 'pets'::regclass::oid::int) WHERE NOT EXISTS (SELECT FROM recorded)
      ), new_id AS MATERIALIZED (
        SELECT nextval('pets_id_seq'::regclass) AS id FROM in_id_order
      ), claimed AS (
        INSERT INTO idempotency_keys AS k (scope, key, pet_id, name, category_id, status)
        SELECT $4::bytea, $5::text, id, $1::text, $2::bigint, $3::text FROM new_id
        ON CONFLICT (scope, key) DO UPDATE SET scope = k.scope
        RETURNING k.pet_id, k.name, k.category_id, k.status, k.pet_id <> (SELECT id FROM new_id) AS replayed
      ), new_pet AS (
        INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
        SELECT pet_id, name, category_id, status FROM claimed WHERE NOT replayed
      )
      SELECT pet_id AS id, name, category_id, status, replayed FROM claimed
      UNION ALL SELECT pet_id, name, category_id, status, true FROM recorded`,
  },
  // A batch of several of which some carry an Idempotency-Key ($4 the SHA-256 of the API key, $5
  // the key; null for a create without one), as createOnce does it for each, in one statement. No
  // key may stand twice in one batch (ON CONFLICT cannot meet one row twice): the store sends the
  // first and replays it for the others.
  createPetsOnce: {
    name: 'create-pets-once',
    text: `WITH sent AS MATERIALIZED (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bytea[], $5::text[]) WITH ORDINALITY AS sent(name, category_id, status, scope, key, ord)
      ), recorded AS MATERIALIZED (
        SELECT sent.ord, k.pet_id, k.name, k.category_id, k.status FROM sent JOIN idempotency_keys k ON k.scope = sent.scope AND k.key = sent.key
      ), in_id_order AS MATERIALIZED (
        SELECT pg_advisory_xact_lock(${ID_ORDER_LOCK_SPACE}, 'pets'::regclass::oid::int) WHERE EXISTS (SELECT FROM sent WHERE ord NOT IN (SELECT ord FROM recorded))
      ), new_pets AS MATERIALIZED (
        SELECT nextval('pets_id_seq'::regclass) AS id, sent.* FROM in_id_order, sent WHERE ord NOT IN (SELECT ord FROM recorded)
      ), claimed AS (
        INSERT INTO idempotency_keys AS k (scope, key, pet_id, name, category_id, status)
        SELECT scope, key, id, name, category_id, status FROM new_pets WHERE key IS NOT NULL
        ON CONFLICT (scope, key) DO UPDATE SET scope = k.scope
        RETURNING k.scope, k.key, k.pet_id, k.name, k.category_id, k.status
      ), answers AS MATERIALIZED (
        SELECT n.ord, c.pet_id AS id, c.name, c.category_id, c.status, c.pet_id <> n.id AS replayed
        FROM new_pets n JOIN claimed c ON c.scope = n.scope AND c.key = n.key
        UNION ALL SELECT ord, id, name, category_id, status, false FROM new_pets WHERE key IS NULL
      ), inserted AS (
        INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
        SELECT id, name, category_id, status FROM answers WHERE NOT replayed
      )
      SELECT ord, ${COLUMNS}, replayed FROM answers
      UNION ALL SELECT ord, pet_id, name, category_id, status, true FROM recorded
      ORDER BY ord`,
  },
  // The oldest expired records, a batch at a time; SKIP LOCKED lets instances purge side by side.
  purgeKeys: {
    name: 'purge-idempotency-keys',
    text: `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1::double precision)
        ORDER BY created_at LIMIT $2::int FOR UPDATE SKIP LOCKED))`,
  },
  get: { name: 'get-pet', text: `SELECT ${COLUMNS} FROM pets WHERE id = $1` },
  // Two statements rather than one with "status = $1 OR $1 IS NULL", so that each keeps its index
  // (the primary key, or (status, id)).
  list: { name: 'list-pets', text: `SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2` },
  // Unnamed (no `name`: see below), so planned for its values at every execution: a named statement soon settles on a
  // generic plan, which cannot tell a rare status from a common one and walks the primary key,
  // filtering (10,100 rows read for a page of 100 of a 1% status), where the plan for the values
  // reads the range of (status, id) after the cursor. Planning costs far less than that walk.
  listByStatus: { text: `SELECT ${COLUMNS} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3` },
} as const;

/** What metrics and spans call each statement. */
const STATEMENT_NAMES: ReadonlyMap<pg.QueryConfig['text'], string> = new Map([
  ...Object.values(STATEMENTS).flatMap((statement) => ('name' in statement ? [[statement.text, statement.name] as const] : [])),
  [STATEMENTS.listByStatus.text, 'list-pets-by-status'],
]);

export interface PostgresPetStore extends PetStore {
  /** The pool, for migrations. */
  pool: pg.Pool;
  /** Deletes the idempotency keys older than the retention period; how many it deleted. */
  purgeExpiredKeys(): Promise<number>;
  /** Whether the database answers and holds the schema. */
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
  /** The most creates one statement writes; 1 writes each on its own, as they arrive. */
  maxCreateBatch?: number;
  /** How long a create may wait for the batches ahead of it (DATABASE_TIMEOUT_MS). */
  maxCreateWaitMs?: number;
}

/** The most creates in one batch, unless configured (DATABASE_CREATE_BATCH_MAX): see docs/performance.md. */
export const DEFAULT_CREATE_BATCH_MAX = 100;
const PURGE_BATCH = 10_000;

export function createPostgresPetStore(
  config: pg.PoolConfig,
  {
    /* c8 ignore next -- for callers that do not watch the pool; the service's (start.ts) logs the loss */
    onPoolError = () => undefined,
    retentionMs = DEFAULT_RETENTION_MS,
    instrument,
    maxCreateBatch = DEFAULT_CREATE_BATCH_MAX,
    // As long as one statement may take: a create waits no longer for others' than for its own.
    maxCreateWaitMs = config.query_timeout ?? 2000,
  }: PostgresStoreOptions = {},
): PostgresPetStore {
  const pool = new pg.Pool({
    ...config,
    // int8 is read digit for digit: a number when a double holds it exactly, else a bigint. Set on
    // this pool only, not on the driver's global parsers.
    types: { getTypeParser: ((oid: number, format?: 'text') => (oid === INT8 ? exactInteger : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  });
  pool.on('error', onPoolError);
  // A database that cannot be reached is the client's to retry (503), anything else is a fault (500).
  const query =
    instrument === undefined
      ? <Row extends pg.QueryResultRow>(config: pg.QueryConfig) => pool.query<Row>(config)
      : <Row extends pg.QueryResultRow>(config: pg.QueryConfig) => instrument(STATEMENT_NAMES.get(config.text)!, () => pool.query<Row>(config));
  const result = async <Row extends pg.QueryResultRow = PetRow>(config: pg.QueryConfig): Promise<pg.QueryResult<Row>> => {
    try {
      return await query<Row>(config);
    } catch (error) {
      throw isUnavailable(error) ? new ServiceUnavailable() : error;
    }
  };
  const petOf = (row: PetRow): Pet =>
    row.status === null ? { id: row.id, name: row.name, categoryId: row.category_id } : { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
  // The rows, each mapped, and then the driver's array emptied. V8 may decide to allocate the array
  // that pg's Result makes for every statement in the old generation (allocation-site pretenuring);
  // such an array, dead but not yet collected, keeps every young row it holds alive through young
  // collections, so every row of every answer was copied and promoted: CPU per page of 100 rows
  // cost 20-35% more (docs/performance.md). Emptied, it holds nothing young.
  const rowsOf = async <T, Row extends pg.QueryResultRow = PetRow>(config: pg.QueryConfig, map: (row: Row) => T): Promise<T[]> => {
    const { rows } = await result<Row>(config);
    const mapped = rows.map(map);
    rows.length = 0;
    return mapped;
  };

  const createdOf = (row: CreatedRow): CreatedOnce => ({ pet: petOf(row), replayed: row.replayed });
  const columnsOf = (creations: readonly Creation[]) => [
    creations.map(({ pet }) => pet.name),
    creations.map(({ pet }) => pet.categoryId),
    creations.map(({ pet }) => pet.status ?? null),
  ];
  const writeBatch = async (creations: Creation[]): Promise<CreatedOnce[]> => {
    if (creations.length === 1) {
      const [{ pet, key }] = creations as [Creation];
      const values = [pet.name, pet.categoryId, pet.status ?? null];
      return key === undefined
        ? rowsOf({ ...STATEMENTS.create, values }, createdOf)
        : rowsOf({ ...STATEMENTS.createOnce, values: [...values, `\\x${key.scope}`, key.key] }, createdOf);
    }
    if (creations.every((creation) => creation.key === undefined)) {
      return rowsOf({ ...STATEMENTS.createPets, values: columnsOf(creations) }, createdOf);
    }
    // A key that stands twice in the batch is written once, by its first create; the others are
    // replays of that one, as if they had come just after it: -1 - i stands for "replays written[i]".
    const written: Creation[] = [];
    const firstWith = new Map<string, number>();
    const sources = creations.map((creation) => {
      if (creation.key === undefined) return written.push(creation) - 1;
      const id = `${creation.key.scope}:${creation.key.key}`;
      const first = firstWith.get(id);
      if (first !== undefined) return -1 - first;
      firstWith.set(id, written.length);
      return written.push(creation) - 1;
    });
    const created = await rowsOf(
      {
        ...STATEMENTS.createPetsOnce,
        values: [...columnsOf(written), written.map(({ key }) => (key === undefined ? null : `\\x${key.scope}`)), written.map(({ key }) => key?.key ?? null)],
      },
      createdOf,
    );
    return sources.map((source) => (source >= 0 ? created[source]! : { pet: created[-1 - source]!.pet, replayed: true }));
  };
  const submitCreate = createBatchQueue(writeBatch, { maxBatch: maxCreateBatch, maxWaitMs: maxCreateWaitMs, keepContext: instrument !== undefined });

  return {
    pool,
    async create(pet: NewPet) {
      return (await submitCreate({ pet, key: undefined })).pet;
    },

    createOnce: (pet: NewPet, key: IdempotencyKey) => submitCreate({ pet, key }),

    async purgeExpiredKeys() {
      let purged = 0;
      for (;;) {
        const { rowCount } = await result({ ...STATEMENTS.purgeKeys, values: [retentionMs / 1000, PURGE_BATCH] });
        /* c8 ignore next -- a DELETE always reports its count; pg's type allows null for statements that do not */
        const deleted = rowCount ?? 0;
        purged += deleted;
        if (deleted < PURGE_BATCH) return purged;
      }
    },

    async get(id: PetId) {
      const [pet] = await rowsOf({ ...STATEMENTS.get, values: [id] }, petOf);
      return pet ?? null;
    },

    // One row more than the page tells whether more follow.
    async list({ limit, status, after }: ListOptions): Promise<PetPage> {
      const from = after ?? 0;
      const pets =
        status === undefined
          ? await rowsOf({ ...STATEMENTS.list, values: [from, limit + 1] }, petOf)
          : await rowsOf({ ...STATEMENTS.listByStatus, values: [status, from, limit + 1] }, petOf);
      const more = pets.length > limit;
      if (more) pets.length = limit;
      return { pets, more };
    },

    async ready() {
      try {
        await pool.query('SELECT FROM pets LIMIT 0');
        return true;
      } catch {
        return false;
      }
    },

    close: () => pool.end(),
  };
}
