// Changes and removals, each one statement conditional on the pet's version (If-Match's; null for
// any): the check and the write are one step. A writer that finds the row changed by a concurrent
// one waits for it, then checks the committed version (READ COMMITTED's recheck), so of two writers
// holding the same tag exactly one succeeds. The version grows only when a value changes. Changes
// without a key are batched (batch-queue.ts, as creates); a change with a key is a transaction of
// its own, which records its answer with the key.
import type pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
import type { PetId, PetPatch, PetStatus } from '../../types/api.js';
import type { ChangeKey, ChangeOutcome, Precondition } from '../pet-store.js';
import { inRounds } from './batch-queue.js';
import { orderLock, VERSIONED, versionedOf, type VersionedRow } from './pet-rows.js';
import type { Statement, Statements } from './statement.js';
import { inTransaction } from './transaction.js';

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

/** A change key's record: its request, and its answer (the pet afterwards; a null name after a removal). */
interface ChangeKeyRow {
  request: string;
  pet_id: PetId;
  name: string | null;
  category_id: PetId | null;
  status: PetStatus | null;
  version: number | null;
}

/** One change without a key, waiting for its batch. */
export interface Update {
  id: PetId;
  patch: PetPatch;
  precondition: Precondition;
}

// The values a merge patch leaves a pet with: $2 the name, $3 the category, each null to keep it;
// $4 whether the patch has a status, $5 that status (null removes it).
const PATCHED = {
  name: 'COALESCE($2::text, name)',
  categoryId: 'COALESCE($3::bigint, category_id)',
  status: 'CASE WHEN $4::boolean THEN $5::text ELSE status END',
};
const IN_FEED_ORDER = orderLock('in_feed_order');
// The pet's row, locked after the feed's lock, and read as it is once the lock is ours: FOR UPDATE
// reads the latest committed version, where a plain read gives the statement's snapshot, taken
// before the wait. So a refusal names the version that refused (never the stale one sent), and a
// pet removed meanwhile is not there (404, not 412).
const TARGET =
  'target AS MATERIALIZED (SELECT version AS current FROM pets, in_feed_order WHERE id = $1 FOR UPDATE OF pets)';

export const CHANGE_STATEMENTS = {
  // The row of "target" tells a pet that is not there (no row) from one at another version (no "changed").
  update: {
    name: 'update-pet',
    text: `WITH ${IN_FEED_ORDER}, ${TARGET},
      changed AS (
        UPDATE pets SET name = ${PATCHED.name}, category_id = ${PATCHED.categoryId}, status = ${PATCHED.status},
          version = pets.version + CASE WHEN (name, category_id, status)
            IS DISTINCT FROM (${PATCHED.name}, ${PATCHED.categoryId}, ${PATCHED.status}) THEN 1 ELSE 0 END
        FROM target
        WHERE id = $1 AND ($6::bigint[] IS NULL OR version = ANY ($6::bigint[]))
        RETURNING ${VERSIONED}
      )
      SELECT changed.*, target.current FROM target LEFT JOIN changed ON true`,
  },
  // Several changes without a key, at most one per pet, in one statement: each conditional on its
  // own versions as above. The rows are locked in id order first, so that batches of several
  // instances never deadlock; "current" is null for a pet that is not there. $6 holds each change's
  // versions as an array's text ('{3,4}'), null for any.
  updatePets: {
    name: 'update-pets',
    text: `WITH sent AS MATERIALIZED (
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::boolean[], $5::text[], $6::text[])
          WITH ORDINALITY AS sent(id, name, category_id, set_status, status, versions, ord)
      ), ${IN_FEED_ORDER}, locked AS MATERIALIZED (
        SELECT id, version FROM pets, in_feed_order WHERE id IN (SELECT id FROM sent) ORDER BY id FOR UPDATE OF pets
      ), changed AS (
        UPDATE pets p SET name = COALESCE(s.name, p.name), category_id = COALESCE(s.category_id, p.category_id),
          status = CASE WHEN s.set_status THEN s.status ELSE p.status END,
          version = p.version + CASE WHEN (p.name, p.category_id, p.status) IS DISTINCT FROM
            (COALESCE(s.name, p.name), COALESCE(s.category_id, p.category_id),
              CASE WHEN s.set_status THEN s.status ELSE p.status END) THEN 1 ELSE 0 END
        FROM sent s JOIN locked l ON l.id = s.id
        WHERE p.id = s.id AND (s.versions IS NULL OR p.version = ANY (s.versions::bigint[]))
        RETURNING s.ord, p.id, p.name, p.category_id, p.status, p.version
      )
      SELECT changed.id, changed.name, changed.category_id, changed.status, changed.version,
        locked.version AS current
      FROM sent LEFT JOIN locked ON locked.id = sent.id LEFT JOIN changed ON changed.ord = sent.ord
      ORDER BY sent.ord`,
  },
  remove: {
    name: 'delete-pet',
    text: `WITH ${IN_FEED_ORDER}, ${TARGET},
      removed AS (
        DELETE FROM pets USING target
        WHERE id = $1 AND ($2::bigint[] IS NULL OR pets.version = ANY ($2::bigint[])) RETURNING id
      )
      SELECT removed.id, NULL AS name, NULL AS category_id, NULL AS status, NULL AS version,
        target.current
      FROM target LEFT JOIN removed ON true`,
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
    text: `SELECT request, pet_id, name, category_id, status, version FROM change_keys
      WHERE scope = $1::bytea AND operation = $2 AND key = $3`,
  },
  recordChange: {
    name: 'record-change',
    text: `UPDATE change_keys SET name = $4, category_id = $5, status = $6, version = $7
      WHERE scope = $1::bytea AND operation = $2 AND key = $3`,
  },
} as const satisfies Record<string, Statement>;

/** If-Match's versions as a parameter: null for any. */
const versionsOf = (precondition: Precondition) => (precondition === '*' ? null : precondition.map(String));

const updateValues = ({ id, patch, precondition }: Update) => [
  id,
  patch.name ?? null,
  patch.categoryId ?? null,
  patch.status !== undefined,
  patch.status ?? null,
  versionsOf(precondition),
];

/**
 * What a change statement's row says: changed (with the pet afterwards, or none after a removal), failed or missing.
 */
function outcomeOf(rows: ChangedRow[], removal: boolean): ChangeOutcome {
  const [row] = rows;
  if (row === undefined || row.current === null) return { outcome: 'missing' };
  if (row.id === null) return { outcome: 'failed', version: row.current };
  return { outcome: 'changed', pet: removal ? null : versionedOf(row as VersionedRow) };
}

/** A statement as a client of a transaction runs it (the transaction is measured as a whole). */
const on = <Row extends pg.QueryResultRow>(client: pg.PoolClient, statement: Statement, values: unknown[]) =>
  client.query<Row>({ name: statement.name, text: statement.text, values });

export function createChanges(pool: pg.Pool, statements: Statements) {
  const { update, updatePets, remove, claimChangeKey, recordedChangeKey, recordChange } = CHANGE_STATEMENTS;

  /** One change with its key, in a transaction: the key claimed, the change, its answer recorded. */
  const keyed = (statement: Statement, values: unknown[], removal: boolean, key: ChangeKey, id: PetId) => {
    const keyValues = [`\\x${key.scope}`, key.operation, key.key];
    return statements.several(`${statement.name}-once`, () =>
      inTransaction(pool, async (client): Promise<ChangeOutcome> => {
        const claimed = await on(client, claimChangeKey, [...keyValues, key.request, id]);
        if (claimed.rows.length === 0) {
          await client.query('ROLLBACK');
          const [recorded] = (await on<ChangeKeyRow>(client, recordedChangeKey, keyValues)).rows;
          // Purged in between, the key would be claimed anew on the next try.
          /* c8 ignore next -- a claim refused is a key recorded */
          if (recorded === undefined) throw new ServiceUnavailable();
          if (recorded.request !== key.request) return { outcome: 'reused', petId: recorded.pet_id };
          const { pet_id: petId, name, category_id: categoryId, status, version } = recorded;
          const answer =
            name === null
              ? null
              : versionedOf({ id: petId, name, category_id: categoryId!, status, version: version! });
          return { outcome: 'replayed', pet: answer };
        }
        const outcome = outcomeOf((await on<ChangedRow>(client, statement, values)).rows, removal);
        if (outcome.outcome !== 'changed') {
          await client.query('ROLLBACK');
          return outcome;
        }
        const pet = outcome.pet;
        await on(client, recordChange, [
          ...keyValues,
          pet?.pet.name ?? null,
          pet?.pet.categoryId ?? null,
          pet?.pet.status ?? null,
          pet?.version ?? null,
        ]);
        await client.query('COMMIT');
        return outcome;
      }),
    );
  };

  /** A batch of changes: rounds of update-pets, each naming a pet once; the single-row statement for a round of one. */
  const writeUpdates = (updates: Update[]): Promise<ChangeOutcome[]> =>
    inRounds(
      updates,
      ({ id }) => String(id),
      async (round) => {
        if (round.length === 1)
          return [outcomeOf((await statements.run<ChangedRow>(update, updateValues(round[0]!))).rows, false)];
        const values = [
          round.map(({ id }) => String(id)),
          round.map(({ patch }) => patch.name ?? null),
          round.map(({ patch }) => (patch.categoryId === undefined ? null : String(patch.categoryId))),
          round.map(({ patch }) => patch.status !== undefined),
          round.map(({ patch }) => patch.status ?? null),
          round.map(({ precondition }) => (precondition === '*' ? null : `{${precondition.join(',')}}`)),
        ];
        const { rows } = await statements.run<ChangedRow>(updatePets, values);
        return rows.map((row) => outcomeOf([row], false));
      },
    );

  return {
    writeUpdates,
    /** A change with a key (a batch of changes without one is writeUpdates'). */
    updateOnce: (change: Update, key: ChangeKey) => keyed(update, updateValues(change), false, key, change.id),
    async remove(id: PetId, precondition: Precondition, key: ChangeKey | undefined): Promise<ChangeOutcome> {
      const values = [id, versionsOf(precondition)];
      if (key === undefined) return outcomeOf((await statements.run<ChangedRow>(remove, values)).rows, true);
      return keyed(remove, values, true, key, id);
    },
  };
}
