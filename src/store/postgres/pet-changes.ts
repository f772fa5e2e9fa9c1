// Changes and removals, each one statement conditional on the pet's version (If-Match's; null for
// any): the check and the write are one step. A writer that finds the row changed by a concurrent
// one waits for it, then checks the committed version (READ COMMITTED's recheck), so of two writers
// holding the same tag exactly one succeeds. The version grows only when a value changes. Changes
// and removals, with a key or without, are batched (batch-queue.ts, as creates): one statement and
// one commit for what arrived together, which records each keyed change's response with its key.
import { changeKeyName } from '../../idempotency/idempotency-key.js';
import type { PetId, PetPatch, PetStatus } from '../../types/api.js';
import type { ChangeKey, ChangeOutcome, Precondition } from '../pet-store.js';
import { inRounds } from './batch-queue.js';
import { versionedOf, type VersionedRow } from './pet-rows.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

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

export const CHANGE_STATEMENTS = statementsOf('pet-changes', {
  update: 'update-pet',
  updatePets: 'update-pets',
  remove: 'delete-pet',
  changePets: 'change-pets',
});

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
  if (row === undefined || row.current === null) return { kind: 'missing' };
  if (row.id === null) return { kind: 'failed', version: row.current };
  return { kind: 'changed', pet: removal ? null : versionedOf(row as VersionedRow) };
}

/** What change-pets' row says; a replay returns the pet its record holds (none after a removal). */
function batchOutcomeOf(row: BatchRow): ChangeOutcome {
  switch (row.outcome) {
    case 'replayed':
    case 'changed':
      return { kind: row.outcome, pet: row.name === null ? null : versionedOf(row as VersionedRow) };
    case 'reused':
      return { kind: 'reused', petId: row.id! };
    case 'missing':
      return { kind: 'missing' };
    default:
      return { kind: 'failed', version: row.current! };
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
