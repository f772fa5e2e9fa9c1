// Changes and removals, each one statement conditional on the pet's version (If-Match's; null for
// any): the check and the write are one step. A writer that finds the row changed by a concurrent
// one waits for it, then checks the committed version (READ COMMITTED's recheck), so of two writers
// holding the same tag exactly one succeeds. The version grows only when a value changes. Changes
// and removals, with a key or without, are batched (batch-queue.ts, as creates): one statement and
// one commit for what arrived together, which records each keyed change's answer with its key.
import { changeKeyName } from '../../idempotency/idempotency-key.js';
import type { PetId, PetPatch, PetStatus } from '../../types/api.js';
import type { ChangeKey, ChangeOutcome, Precondition } from '../pet-store.js';
import { inRounds } from './batch-queue.js';
import { orderLock, VERSIONED, versionedOf, type VersionedRow } from './pet-rows.js';
import type { Statement, Statements } from './statement.js';

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

/** change-pets' row: a change's row, with what happened to it. */
interface BatchRow extends ChangedRow {
  outcome: 'changed' | 'replayed' | 'reused' | 'missing' | 'failed';
}

/** One change or removal waiting for its batch, with its Idempotency-Key when it sent one. */
export interface Change {
  kind: 'update' | 'remove';
  id: PetId;
  /** What an update sets ({} for a removal). */
  patch: PetPatch;
  precondition: Precondition;
  key: ChangeKey | undefined;
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
  // versions as an array's text ('{3,4}'), null for any. The rows to change are named as an array,
  // which the primary key finds: as a join alone, the generic plan a connection cached while pets
  // was nearly empty (a new database) read the whole table for every batch until the next ANALYZE.
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
        WHERE p.id = ANY (ARRAY(SELECT id FROM locked)) AND p.id = s.id
          AND (s.versions IS NULL OR p.version = ANY (s.versions::bigint[]))
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
  // Changes that arrived together of which some carry an Idempotency-Key, or remove a pet: migration
  // 8's change_batch, one statement. $1 the kinds ('update', 'remove'), then each change's values
  // as update-pets takes them, then its key's scope, operation, key and request (nulls without one).
  changePets: {
    name: 'change-pets',
    text: `SELECT * FROM change_batch($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::boolean[], $6::text[],
      $7::text[], $8::bytea[], $9::text[], $10::text[], $11::text[])`,
  },
} as const satisfies Record<string, Statement>;

/** If-Match's versions as a parameter: null for any. */
const versionsOf = (precondition: Precondition) => (precondition === '*' ? null : precondition.map(String));

const updateValues = ({ id, patch, precondition }: Change) => [
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

/** What change-pets' row says; a replay answers the pet its record holds (none after a removal). */
function batchOutcomeOf(row: BatchRow): ChangeOutcome {
  switch (row.outcome) {
    case 'replayed':
    case 'changed':
      return { outcome: row.outcome, pet: row.name === null ? null : versionedOf(row as VersionedRow) };
    case 'reused':
      return { outcome: 'reused', petId: row.id! };
    case 'missing':
      return { outcome: 'missing' };
    default:
      return { outcome: 'failed', version: row.current! };
  }
}

/** A round's changes as update-pets' arrays (change-pets' $2-$7). */
const changeColumns = (round: Change[]) => [
  round.map(({ id }) => String(id)),
  round.map(({ patch }) => patch.name ?? null),
  round.map(({ patch }) => (patch.categoryId === undefined ? null : String(patch.categoryId))),
  round.map(({ patch }) => patch.status !== undefined),
  round.map(({ patch }) => patch.status ?? null),
  round.map(({ precondition }) => (precondition === '*' ? null : `{${precondition.join(',')}}`)),
];

/** A round's changes as change-pets' arrays: the kinds, update-pets' columns, then the keys'. */
const batchValues = (round: Change[]) => [
  round.map(({ kind }) => kind),
  ...changeColumns(round),
  round.map(({ key }) => (key === undefined ? null : `\\x${key.scope}`)),
  round.map(({ key }) => key?.operation ?? null),
  round.map(({ key }) => key?.key ?? null),
  round.map(({ key }) => key?.request ?? null),
];

/**
 * Writes a batch of changes: rounds in which no pet and no key stands twice, each one statement. A
 * round of updates without keys is update-pets (update-pet for one); a lone removal without a key
 * delete-pet; any other round change-pets.
 */
export function changeWriter(statements: Statements) {
  const { update, updatePets, remove, changePets } = CHANGE_STATEMENTS;
  return (changes: Change[]): Promise<ChangeOutcome[]> =>
    inRounds(
      changes,
      ({ id, key }) => (key === undefined ? [String(id)] : [String(id), changeKeyName(key)]),
      async (round) => {
        const [first] = round as [Change];
        if (round.length === 1 && first.key === undefined) {
          const removal = first.kind === 'remove';
          const values = removal ? [first.id, versionsOf(first.precondition)] : updateValues(first);
          return [outcomeOf((await statements.run<ChangedRow>(removal ? remove : update, values)).rows, removal)];
        }
        if (round.every(({ kind, key }) => kind === 'update' && key === undefined)) {
          const { rows } = await statements.run<ChangedRow>(updatePets, changeColumns(round));
          return rows.map((row) => outcomeOf([row], false));
        }
        const { rows } = await statements.run<BatchRow>(changePets, batchValues(round));
        return rows.map(batchOutcomeOf);
      },
    );
}
