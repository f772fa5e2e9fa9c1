// Creates, written in batches (batch-queue.ts): one statement, so one transaction and one commit,
// for every create of a batch. A create is committed (on disk, with PostgreSQL's default
// synchronous_commit) before it is answered. Batches take their ids and commit one at a time, under
// the order lock (pet-rows.ts): without it, a batch holding id 4 could commit after the one holding
// 5, and a client that had paged past 5 would never see 4.
import type { IdempotencyKey } from '../../idempotency/idempotency-key.js';
import type { NewPet } from '../../types/api.js';
import type { CreatedOnce } from '../pet-store.js';
import { COLUMNS, orderLock, petOf, type PetRow } from './pet-rows.js';
import type { Statement, Statements } from './statement.js';

interface CreatedRow extends PetRow {
  replayed: boolean;
}

/** One create waiting for its batch: its pet, and its Idempotency-Key when it sent one. */
export interface Creation {
  pet: NewPet;
  key: IdempotencyKey | undefined;
}

const NEW_ID = "nextval('pets_id_seq'::regclass)";

export const CREATE_STATEMENTS = {
  // A batch of one (every create when the service is not busy): the array form below costs a lone
  // create about 5% more latency (docs/performance.md).
  create: {
    name: 'create-pet',
    text: `WITH ${orderLock('in_id_order')}
      INSERT INTO pets (name, category_id, status) SELECT $1, $2, $3 FROM in_id_order
      RETURNING ${COLUMNS}, false AS replayed`,
  },
  // A batch of several, in the order they were sent.
  createPets: {
    name: 'create-pets',
    text: `WITH ${orderLock('in_id_order')},
      new_pets AS MATERIALIZED (
        SELECT ${NEW_ID} AS id, sent.name, sent.category_id, sent.status, sent.ord
        FROM in_id_order, unnest($1::text[], $2::bigint[], $3::text[])
          WITH ORDINALITY AS sent(name, category_id, status, ord)
      ), inserted AS (
        INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
        SELECT id, name, category_id, status FROM new_pets
      )
      SELECT ${COLUMNS}, false AS replayed FROM new_pets ORDER BY ord`,
  },
  // A lone create with an Idempotency-Key: a key recorded before this statement began is replayed
  // without taking the lock or an id. Otherwise the key and the pet are inserted together, under
  // the same lock. A retry sent while the first request with its key is under way (in a batch of
  // this instance or another) waits, on the lock and then on the key's row, until that one
  // commits; ON CONFLICT then returns the first request's record, and only the id this statement
  // took is lost (a gap, as the spec allows).
  createOnce: {
    name: 'create-pet-once',
    text: `WITH recorded AS MATERIALIZED (
        SELECT pet_id, name, category_id, status FROM idempotency_keys WHERE scope = $4::bytea AND key = $5::text
      ), ${orderLock('in_id_order', 'NOT EXISTS (SELECT FROM recorded)')},
      new_id AS MATERIALIZED (
        SELECT ${NEW_ID} AS id FROM in_id_order
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
  // first and replays it for the others. Each key is looked up in a subquery of its own, which no
  // join method replaces: as a join, the generic plan a connection cached while idempotency_keys
  // was empty (a new database) read the whole table for every batch until the next ANALYZE.
  createPetsOnce: {
    name: 'create-pets-once',
    text: `WITH sent AS MATERIALIZED (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bytea[], $5::text[])
          WITH ORDINALITY AS sent(name, category_id, status, scope, key, ord)
      ), recorded AS MATERIALIZED (
        SELECT x.ord, (x.k).pet_id, (x.k).name, (x.k).category_id, (x.k).status
        FROM (
          SELECT sent.ord, (SELECT k FROM idempotency_keys k WHERE k.scope = sent.scope AND k.key = sent.key) AS k
          FROM sent WHERE sent.key IS NOT NULL OFFSET 0
        ) x
        WHERE (x.k).pet_id IS NOT NULL
      ), ${orderLock('in_id_order', 'EXISTS (SELECT FROM sent WHERE ord NOT IN (SELECT ord FROM recorded))')},
      new_pets AS MATERIALIZED (
        SELECT ${NEW_ID} AS id, sent.* FROM in_id_order, sent WHERE ord NOT IN (SELECT ord FROM recorded)
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
} as const satisfies Record<string, Statement>;

const createdOf = (row: CreatedRow): CreatedOnce => ({ pet: petOf(row), replayed: row.replayed });
const columnsOf = (creations: readonly Creation[]) => [
  creations.map(({ pet }) => pet.name),
  creations.map(({ pet }) => pet.categoryId),
  creations.map(({ pet }) => pet.status ?? null),
];

/** Writes a batch of creates in one statement; each one's answer, in the batch's order. */
export function createWriter(statements: Statements) {
  const { create, createOnce, createPets, createPetsOnce } = CREATE_STATEMENTS;
  return async (creations: Creation[]): Promise<CreatedOnce[]> => {
    if (creations.length === 1) {
      const [{ pet, key }] = creations as [Creation];
      const values = [pet.name, pet.categoryId, pet.status ?? null];
      return key === undefined
        ? statements.rows(create, values, createdOf)
        : statements.rows(createOnce, [...values, `\\x${key.scope}`, key.key], createdOf);
    }
    if (creations.every((creation) => creation.key === undefined)) {
      return statements.rows(createPets, columnsOf(creations), createdOf);
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
    const scopes = written.map(({ key }) => (key === undefined ? null : `\\x${key.scope}`));
    const keys = written.map(({ key }) => key?.key ?? null);
    const created = await statements.rows(createPetsOnce, [...columnsOf(written), scopes, keys], createdOf);
    return sources.map((source) =>
      source >= 0 ? created[source]! : { pet: created[-1 - source]!.pet, replayed: true },
    );
  };
}
