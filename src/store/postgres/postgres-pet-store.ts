// Pets in PostgreSQL, for deployments of many stateless instances on one database. Every operation
// is one statement, so one round trip; creates that arrive together share one (a batch), and a
// create is committed (on disk, with PostgreSQL's default synchronous_commit) before it is answered.
import pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
import { DEFAULT_RETENTION_MS, type IdempotencyKey } from '../../idempotency/idempotency-key.js';
import type { NewPet, Pet, PetId, PetPatch, PetStatus } from '../../types/api.js';
import { exactInteger } from '../../validation/int64.js';
import type {
  ChangeKey,
  ChangeOutcome,
  CreatedOnce,
  DeliveryLedger,
  DeliveryState,
  EventPage,
  ListOptions,
  PetEventType,
  PetPage,
  PetStore,
  Precondition,
  StoredEvent,
  VersionedPet,
} from '../pet-store.js';
import { createBatchQueue } from './batch-queue.js';
import type { StatementInstrument } from './statement-instrument.js';
import { inTransaction } from './transaction.js';
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

interface VersionedRow extends PetRow {
  version: number;
}

/**
 * A change's row: the pet afterwards (nulls when nothing changed), and the version it had before (null: no such pet).
 */
interface ChangedRow {
  id: PetId | null;
  name: string | null;
  category_id: PetId | null;
  status: PetStatus | null;
  version: number | null;
  current: number | null;
}

/** A row of a feed page: the feed's epoch and horizon, and one event (nulls when the page is empty). */
interface EventRow {
  epoch: string;
  purged_through: number;
  seq: number | null;
  type: PetEventType;
  pet_id: PetId;
  version: number;
  occurred_at: Date;
  name: string | null;
  category_id: PetId;
  status: PetStatus | null;
}

interface DeliveryRow {
  position: number;
  attempt: number;
  due_at: Date | null;
  stopped_entry: string;
}

/** One change without a key, waiting for its batch. */
interface Update {
  id: PetId;
  patch: PetPatch;
  precondition: Precondition;
}

/** A change key's record: its request, and its answer (the pet afterwards; a null name after a removal). */
interface ChangeKeyRow {
  request: string;
  pet_id: PetId;
  name: string | null;
  category_id: PetId | null;
  status: PetStatus | null;
  version: number | null;
}

/** One create waiting for its batch: its pet, and its Idempotency-Key when it sent one. */
interface Creation {
  pet: NewPet;
  key: IdempotencyKey | undefined;
}

const COLUMNS = 'id, name, category_id, status';
const VERSIONED = `${COLUMNS}, version`;
// The values a merge patch leaves a pet with: $2 the name, $3 the category, each null to keep it;
// $4 whether the patch has a status, $5 that status (null removes it).
const PATCHED = {
  name: 'COALESCE($2::text, name)',
  categoryId: 'COALESCE($3::bigint, category_id)',
  status: 'CASE WHEN $4::boolean THEN $5::text ELSE status END',
};
// The first half of the two-integer advisory lock key of the create lock: "pets" as ASCII.
const ID_ORDER_LOCK_SPACE = 0x7065_7473;
// Changes take the create lock too, before they lock a row: every write to pets records its events
// (migration 5's triggers) under it, so events commit in seq order, and the lock always comes
// before row locks, so writers cannot deadlock on it (docs/events.md).
const IN_FEED_ORDER = `in_feed_order AS MATERIALIZED (SELECT pg_advisory_xact_lock(${ID_ORDER_LOCK_SPACE}, 'pets'::regclass::oid::int))`;

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
  // The change keys' records, like the creates' above.
  purgeChangeKeys: {
    name: 'purge-change-keys',
    text: `DELETE FROM change_keys WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM change_keys WHERE created_at < now() - make_interval(secs => $1::double precision)
        ORDER BY created_at LIMIT $2::int FOR UPDATE SKIP LOCKED))`,
  },
  get: { name: 'get-pet', text: `SELECT ${VERSIONED} FROM pets WHERE id = $1` },
  // A change is one statement, conditional on the version ($6, If-Match's; null for any): the check
  // and the write are one step. A writer that finds the row changed by a concurrent one waits for
  // it, then checks the committed version (READ COMMITTED's recheck), so of two writers holding the
  // same tag exactly one succeeds. The version grows only when a value changes. The row of
  // "target" tells a pet that is not there (no row) from one at another version (no "changed").
  update: {
    name: 'update-pet',
    text: `WITH target AS MATERIALIZED (SELECT version FROM pets WHERE id = $1),
      ${IN_FEED_ORDER},
      changed AS (
        UPDATE pets SET name = ${PATCHED.name}, category_id = ${PATCHED.categoryId}, status = ${PATCHED.status},
          version = version + CASE WHEN (name, category_id, status) IS DISTINCT FROM (${PATCHED.name}, ${PATCHED.categoryId}, ${PATCHED.status}) THEN 1 ELSE 0 END
        FROM in_feed_order
        WHERE id = $1 AND ($6::bigint[] IS NULL OR version = ANY ($6::bigint[]))
        RETURNING ${VERSIONED}
      )
      SELECT changed.*, target.version AS current FROM target LEFT JOIN changed ON true`,
  },
  // Several changes without a key (batch-queue.ts, as creates), at most one per pet, in one
  // statement: each conditional on its own versions as above. The rows are locked in id order
  // first, so that batches of several instances never deadlock; "current" is null for a pet that is
  // not there. $6 holds each change's versions as an array's text ('{3,4}'), null for any.
  updatePets: {
    name: 'update-pets',
    text: `WITH sent AS MATERIALIZED (
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::boolean[], $5::text[], $6::text[]) WITH ORDINALITY AS sent(id, name, category_id, set_status, status, versions, ord)
      ), ${IN_FEED_ORDER}, locked AS MATERIALIZED (
        SELECT id, version FROM pets, in_feed_order WHERE id IN (SELECT id FROM sent) ORDER BY id FOR UPDATE OF pets
      ), changed AS (
        UPDATE pets p SET name = COALESCE(s.name, p.name), category_id = COALESCE(s.category_id, p.category_id),
          status = CASE WHEN s.set_status THEN s.status ELSE p.status END,
          version = p.version + CASE WHEN (p.name, p.category_id, p.status) IS DISTINCT FROM
            (COALESCE(s.name, p.name), COALESCE(s.category_id, p.category_id), CASE WHEN s.set_status THEN s.status ELSE p.status END) THEN 1 ELSE 0 END
        FROM sent s JOIN locked l ON l.id = s.id
        WHERE p.id = s.id AND (s.versions IS NULL OR p.version = ANY (s.versions::bigint[]))
        RETURNING s.ord, p.id, p.name, p.category_id, p.status, p.version
      )
      SELECT changed.id, changed.name, changed.category_id, changed.status, changed.version, locked.version AS current
      FROM sent LEFT JOIN locked ON locked.id = sent.id LEFT JOIN changed ON changed.ord = sent.ord ORDER BY sent.ord`,
  },
  remove: {
    name: 'delete-pet',
    text: `WITH target AS MATERIALIZED (SELECT version FROM pets WHERE id = $1),
      ${IN_FEED_ORDER},
      removed AS (DELETE FROM pets USING in_feed_order WHERE id = $1 AND ($2::bigint[] IS NULL OR version = ANY ($2::bigint[])) RETURNING id)
      SELECT removed.id, NULL AS name, NULL AS category_id, NULL AS status, NULL AS version, target.version AS current FROM target LEFT JOIN removed ON true`,
  },
  // A change with an Idempotency-Key, in one transaction: the key is claimed first (a retry sent
  // meanwhile waits on its row, then finds it recorded), then the change above, then its answer is
  // recorded with the key. A change refused (404, 412) rolls back, recording nothing.
  claimChangeKey: {
    name: 'claim-change-key',
    text: `INSERT INTO change_keys (scope, operation, key, request, pet_id) VALUES ($1::bytea, $2, $3, $4, $5)
      ON CONFLICT DO NOTHING RETURNING true AS claimed`,
  },
  recordedChangeKey: {
    name: 'recorded-change-key',
    text: 'SELECT request, pet_id, name, category_id, status, version FROM change_keys WHERE scope = $1::bytea AND operation = $2 AND key = $3',
  },
  recordChange: {
    name: 'record-change',
    text: `UPDATE change_keys SET name = $4, category_id = $5, status = $6, version = $7
      WHERE scope = $1::bytea AND operation = $2 AND key = $3`,
  },
  // A page of the feed and where it starts, read in one snapshot: a purge that commits meanwhile
  // cannot remove events between the check of the cursor and the read.
  listEvents: {
    name: 'list-pet-events',
    text: `SELECT f.epoch, f.purged_through, e.seq, e.type, e.pet_id, e.version, e.occurred_at, e.name, e.category_id, e.status
      FROM pet_event_feed f LEFT JOIN LATERAL (
        SELECT * FROM pet_events WHERE seq > GREATEST($1::bigint, f.purged_through) ORDER BY seq LIMIT $2
      ) e ON true`,
  },
  // The oldest events, a batch at a time, up to the first one recorded since the cut-off; the feed
  // remembers the last seq removed, so that a cursor before it is told it is expired.
  purgeEvents: {
    name: 'purge-pet-events',
    text: `WITH oldest AS MATERIALIZED (SELECT seq, occurred_at FROM pet_events ORDER BY seq LIMIT $2::int),
      cut AS (SELECT COALESCE(min(seq) FILTER (WHERE occurred_at >= now() - make_interval(secs => $1::double precision)), max(seq) + 1) AS stop FROM oldest),
      gone AS (DELETE FROM pet_events WHERE seq < (SELECT stop FROM cut) RETURNING seq),
      moved AS (UPDATE pet_event_feed SET purged_through = GREATEST(purged_through, (SELECT max(seq) FROM gone)) WHERE EXISTS (SELECT FROM gone))
      SELECT count(*)::int AS purged FROM gone`,
  },
  // An endpoint's deliveries, leased to $2 for $3 ms unless another instance holds them; an
  // endpoint seen for the first time is added, starting after the newest event.
  claimDeliveries: {
    name: 'claim-deliveries',
    text: `UPDATE webhook_endpoints SET lease_owner = $2, lease_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
      WHERE url = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < clock_timestamp())
      RETURNING position, attempt, due_at, stopped_entry`,
  },
  addDeliveries: {
    name: 'add-deliveries',
    text: `INSERT INTO webhook_endpoints (url, position, lease_owner, lease_until)
      SELECT $1, GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed)), $2,
        clock_timestamp() + make_interval(secs => $3::double precision / 1000)
      ON CONFLICT (url) DO NOTHING RETURNING position, attempt, due_at, stopped_entry`,
  },
  recordDeliveries: {
    name: 'record-deliveries',
    text: `UPDATE webhook_endpoints SET position = $3, attempt = $4, due_at = $5, stopped_entry = $6,
        lease_until = clock_timestamp() + make_interval(secs => $7::double precision / 1000)
      WHERE url = $1 AND lease_owner = $2 RETURNING true AS recorded`,
  },
  releaseDeliveries: {
    name: 'release-deliveries',
    text: `UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE url = $1 AND lease_owner = $2`,
  },
  // Two statements rather than one with "status = $1 OR $1 IS NULL", so that each keeps its index
  // (the primary key, or (status, id)).
  list: { name: 'list-pets', text: `SELECT ${VERSIONED} FROM pets WHERE id > $1 ORDER BY id LIMIT $2` },
  // Unnamed (no `name`: see below), so planned for its values at every execution: a named statement soon settles on a
  // generic plan, which cannot tell a rare status from a common one and walks the primary key,
  // filtering (10,100 rows read for a page of 100 of a 1% status), where the plan for the values
  // reads the range of (status, id) after the cursor. Planning costs far less than that walk.
  listByStatus: { text: `SELECT ${VERSIONED} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3` },
} as const;

/** What metrics and spans call each statement. */
const STATEMENT_NAMES: ReadonlyMap<pg.QueryConfig['text'], string> = new Map([
  ...Object.values(STATEMENTS).flatMap((statement) =>
    'name' in statement ? [[statement.text, statement.name] as const] : [],
  ),
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

/** If-Match's versions as a parameter: null for any. */
const versionsOf = (precondition: Precondition) => (precondition === '*' ? null : precondition.map(String));

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
    types: {
      getTypeParser: ((oid: number, format?: 'text') =>
        oid === INT8 ? exactInteger : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', onPoolError);
  // A database that cannot be reached is the client's to retry (503), anything else is a fault (500).
  const query =
    instrument === undefined
      ? <Row extends pg.QueryResultRow>(config: pg.QueryConfig) => pool.query<Row>(config)
      : <Row extends pg.QueryResultRow>(config: pg.QueryConfig) =>
          instrument(STATEMENT_NAMES.get(config.text)!, () => pool.query<Row>(config));
  const result = async <Row extends pg.QueryResultRow = PetRow>(
    config: pg.QueryConfig,
  ): Promise<pg.QueryResult<Row>> => {
    try {
      return await query<Row>(config);
    } catch (error) {
      throw isUnavailable(error) ? new ServiceUnavailable() : error;
    }
  };
  const petOf = (row: PetRow): Pet =>
    row.status === null
      ? { id: row.id, name: row.name, categoryId: row.category_id }
      : { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
  const versionedOf = (row: VersionedRow): VersionedPet => ({ pet: petOf(row), version: row.version });
  // The rows, each mapped, and then the driver's array emptied. V8 may decide to allocate the array
  // that pg's Result makes for every statement in the old generation (allocation-site pretenuring);
  // such an array, dead but not yet collected, keeps every young row it holds alive through young
  // collections, so every row of every answer was copied and promoted: CPU per page of 100 rows
  // cost 20-35% more (docs/performance.md). Emptied, it holds nothing young.
  const rowsOf = async <T, Row extends pg.QueryResultRow = PetRow>(
    config: pg.QueryConfig,
    map: (row: Row) => T,
  ): Promise<T[]> => {
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
        values: [
          ...columnsOf(written),
          written.map(({ key }) => (key === undefined ? null : `\\x${key.scope}`)),
          written.map(({ key }) => key?.key ?? null),
        ],
      },
      createdOf,
    );
    return sources.map((source) =>
      source >= 0 ? created[source]! : { pet: created[-1 - source]!.pet, replayed: true },
    );
  };
  /**
   * What a change statement's row says: changed (with the pet afterwards, or none after a removal), failed or missing.
   */
  const outcomeOf = (rows: ChangedRow[], removal: boolean): ChangeOutcome => {
    const [row] = rows;
    if (row === undefined || row.current === null) return { outcome: 'missing' };
    if (row.id === null) return { outcome: 'failed', version: row.current };
    return { outcome: 'changed', pet: removal ? null : versionedOf(row as VersionedRow) };
  };

  /** One change: its statement alone, or with its key in a transaction (STATEMENTS.claimChangeKey). */
  const change = async (statement: pg.QueryConfig, key: ChangeKey | undefined, id: PetId): Promise<ChangeOutcome> => {
    const removal = statement.text === STATEMENTS.remove.text;
    if (key === undefined) return outcomeOf((await result<ChangedRow>(statement)).rows, removal);
    const keyValues = [`\\x${key.scope}`, key.operation, key.key];
    const run = () =>
      inTransaction(pool, async (client): Promise<ChangeOutcome> => {
        const claimed = await client.query({ ...STATEMENTS.claimChangeKey, values: [...keyValues, key.request, id] });
        if (claimed.rows.length === 0) {
          await client.query('ROLLBACK');
          const [recorded] = (await client.query<ChangeKeyRow>({ ...STATEMENTS.recordedChangeKey, values: keyValues }))
            .rows;
          // Purged in between, the key would be claimed anew on the next try.
          /* c8 ignore next -- a claim refused is a key recorded */
          if (recorded === undefined) throw new ServiceUnavailable();
          if (recorded.request !== key.request) return { outcome: 'reused', petId: recorded.pet_id };
          const answer =
            recorded.name === null
              ? null
              : versionedOf({
                  id: recorded.pet_id,
                  name: recorded.name,
                  category_id: recorded.category_id!,
                  status: recorded.status,
                  version: recorded.version!,
                });
          return { outcome: 'replayed', pet: answer };
        }
        const outcome = outcomeOf((await client.query<ChangedRow>(statement)).rows, removal);
        if (outcome.outcome !== 'changed') {
          await client.query('ROLLBACK');
          return outcome;
        }
        const pet = outcome.pet;
        await client.query({
          ...STATEMENTS.recordChange,
          values: [
            ...keyValues,
            pet?.pet.name ?? null,
            pet?.pet.categoryId ?? null,
            pet?.pet.status ?? null,
            pet?.version ?? null,
          ],
        });
        await client.query('COMMIT');
        return outcome;
      }).catch((error: unknown) => {
        throw isUnavailable(error) ? new ServiceUnavailable() : error;
      });
    return instrument === undefined ? run() : instrument(`${STATEMENT_NAMES.get(statement.text)!}-once`, run);
  };

  const updateValues = ({ id, patch, precondition }: Update) => [
    id,
    patch.name ?? null,
    patch.categoryId ?? null,
    patch.status !== undefined,
    patch.status ?? null,
    versionsOf(precondition),
  ];
  /** A batch of changes: the single-row statement for one, else rounds of update-pets, each naming a pet once. */
  const writeUpdates = async (updates: Update[]): Promise<ChangeOutcome[]> => {
    const outcomes = new Array<ChangeOutcome>(updates.length);
    for (let pending = updates.map((_, index) => index); pending.length > 0;) {
      const named = new Set<string>();
      const round: number[] = [];
      const later: number[] = [];
      for (const index of pending) {
        const id = String(updates[index]!.id);
        (named.has(id) ? later : round).push(index);
        named.add(id);
      }
      if (round.length === 1) {
        outcomes[round[0]!] = outcomeOf(
          (await result<ChangedRow>({ ...STATEMENTS.update, values: updateValues(updates[round[0]!]!) })).rows,
          false,
        );
      } else {
        const batch = round.map((index) => updates[index]!);
        const values = [
          batch.map(({ id }) => String(id)),
          batch.map(({ patch }) => patch.name ?? null),
          batch.map(({ patch }) => (patch.categoryId === undefined ? null : String(patch.categoryId))),
          batch.map(({ patch }) => patch.status !== undefined),
          batch.map(({ patch }) => patch.status ?? null),
          batch.map(({ precondition }) => (precondition === '*' ? null : `{${precondition.join(',')}}`)),
        ];
        const { rows } = await result<ChangedRow>({ ...STATEMENTS.updatePets, values });
        round.forEach((index, position) => (outcomes[index] = outcomeOf([rows[position]!], false)));
      }
      pending = later;
    }
    return outcomes;
  };
  const submitUpdate = createBatchQueue(writeUpdates, {
    maxBatch: maxCreateBatch,
    maxWaitMs: maxCreateWaitMs,
    keepContext: instrument !== undefined,
  });

  const eventOf = (row: EventRow): StoredEvent => {
    const event: StoredEvent = {
      seq: row.seq!,
      type: row.type,
      petId: row.pet_id,
      version: row.version,
      occurredAt: row.occurred_at.getTime(),
    };
    if (row.name !== null)
      event.pet = petOf({ id: row.pet_id, name: row.name, category_id: row.category_id, status: row.status });
    return event;
  };
  const stateOf = (row: DeliveryRow): DeliveryState => ({
    position: row.position,
    attempt: row.attempt,
    dueAt: row.due_at?.getTime() ?? 0,
    stoppedEntry: row.stopped_entry,
  });
  const deliveries: DeliveryLedger = {
    async claim(endpoint, owner, leaseMs) {
      const values = [endpoint, owner, leaseMs];
      const [claimed] = await rowsOf({ ...STATEMENTS.claimDeliveries, values }, stateOf);
      if (claimed !== undefined) return claimed;
      const [added] = await rowsOf({ ...STATEMENTS.addDeliveries, values }, stateOf);
      return added ?? null;
    },
    async record(endpoint, owner, { position, attempt, dueAt, stoppedEntry }, leaseMs) {
      const values = [endpoint, owner, position, attempt, dueAt === 0 ? null : new Date(dueAt), stoppedEntry, leaseMs];
      return (await result({ ...STATEMENTS.recordDeliveries, values })).rows.length === 1;
    },
    async release(endpoint, owner) {
      await result({ ...STATEMENTS.releaseDeliveries, values: [endpoint, owner] });
    },
  };

  const submitCreate = createBatchQueue(writeBatch, {
    maxBatch: maxCreateBatch,
    maxWaitMs: maxCreateWaitMs,
    keepContext: instrument !== undefined,
  });

  return {
    pool,
    async create(pet: NewPet) {
      return (await submitCreate({ pet, key: undefined })).pet;
    },

    createOnce: (pet: NewPet, key: IdempotencyKey) => submitCreate({ pet, key }),

    async purgeExpiredKeys() {
      let purged = 0;
      for (const statement of [STATEMENTS.purgeKeys, STATEMENTS.purgeChangeKeys]) {
        for (;;) {
          const { rowCount } = await result({ ...statement, values: [retentionMs / 1000, PURGE_BATCH] });
          /* c8 ignore next -- a DELETE always reports its count; pg's type allows null for statements that do not */
          const deleted = rowCount ?? 0;
          purged += deleted;
          if (deleted < PURGE_BATCH) break;
        }
      }
      return purged;
    },

    async get(id: PetId) {
      const [pet] = await rowsOf({ ...STATEMENTS.get, values: [id] }, versionedOf);
      return pet ?? null;
    },

    // One row more than the page tells whether more follow.
    async list({ limit, status, after }: ListOptions): Promise<PetPage> {
      const from = after ?? 0;
      const versions: number[] = [];
      const read = (row: VersionedRow) => {
        versions.push(row.version);
        return petOf(row);
      };
      const pets =
        status === undefined
          ? await rowsOf({ ...STATEMENTS.list, values: [from, limit + 1] }, read)
          : await rowsOf({ ...STATEMENTS.listByStatus, values: [status, from, limit + 1] }, read);
      const more = pets.length > limit;
      if (more) pets.length = versions.length = limit;
      return { pets, versions, more };
    },

    update(id: PetId, patch: PetPatch, precondition: Precondition, key?: ChangeKey) {
      return key === undefined
        ? submitUpdate({ id, patch, precondition })
        : change({ ...STATEMENTS.update, values: updateValues({ id, patch, precondition }) }, key, id);
    },

    remove(id: PetId, precondition: Precondition, key?: ChangeKey) {
      return change({ ...STATEMENTS.remove, values: [id, versionsOf(precondition)] }, key, id);
    },

    async listEvents(after: number | undefined, limit: number): Promise<EventPage> {
      const { rows } = await result<EventRow>({ ...STATEMENTS.listEvents, values: [after ?? 0, limit] });
      const [first] = rows;
      /* c8 ignore next -- migration 5 writes the feed's row, and nothing deletes it */
      if (first === undefined) throw new Error('pet_event_feed has no row: the schema is not current');
      const events = first.seq === null ? [] : rows.map(eventOf);
      rows.length = 0;
      return { events, epoch: first.epoch, horizon: first.purged_through };
    },

    async purgeEvents(olderThanMs: number) {
      let purged = 0;
      for (;;) {
        const [{ purged: deleted }] = (
          await result<{ purged: number }>({ ...STATEMENTS.purgeEvents, values: [olderThanMs / 1000, PURGE_BATCH] })
        ).rows as [{ purged: number }];
        purged += deleted;
        if (deleted < PURGE_BATCH) return purged;
      }
    },

    deliveries,

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
