// Reads of pets: one by id, and pages in id order after a cursor (keyset pagination), each on a
// replica fresh enough or the primary (replicas.ts).
import type { Pet, PetId } from '../../types/api.js';
import type { ListOptions, PetPage } from '../pet-store.js';
import type { ReadAt } from '../read-at.js';
import { petOf, versionedOf, type VersionedRow } from './pet-rows.js';
import type { PositionedRow, ReadRouter } from './replicas.js';
import { statementsOf } from './sql-files.js';

/** A row of a page or of get-pet: a pet, or nulls when there is none, and where it was read. */
type PageRow = Omit<VersionedRow, 'id'> & PositionedRow & { id: VersionedRow['id'] | null };

export const READ_STATEMENTS = statementsOf('pet-reads', {
  get: 'get-pet',
  list: 'list-pets',
  // Not prepared, so planned for its values at every execution: a prepared statement soon settles on
  // a generic plan, which cannot tell a rare status from a common one and walks the primary key,
  // filtering (10,100 rows read for a page of 100 of a 1% status), where the plan for the values
  // reads the range of (status, id) after the cursor. Planning costs far less than that walk.
  listByStatus: { name: 'list-pets-by-status', prepared: false },
  ready: 'ready',
});

export function createReads(reads: ReadRouter) {
  return {
    async get(id: PetId, at?: ReadAt) {
      const { rows } = await reads.run<PageRow>(READ_STATEMENTS.get, [id], at);
      const [row] = rows;
      rows.length = 0;
      return row!.id === null ? null : versionedOf(row as VersionedRow);
    },

    // One row more than the page tells whether more follow.
    async list({ limit, status, after, at }: ListOptions): Promise<PetPage> {
      const from = after ?? 0;
      const { rows } =
        status === undefined
          ? await reads.run<PageRow>(READ_STATEMENTS.list, [from, limit + 1], at)
          : await reads.run<PageRow>(READ_STATEMENTS.listByStatus, [status, from, limit + 1], at);
      const position = Number(rows[0]!.position);
      const pets: Pet[] = [];
      const versions: number[] = [];
      if (rows[0]!.id !== null)
        for (const row of rows) {
          versions.push(row.version);
          pets.push(petOf(row as VersionedRow));
        }
      const more = pets.length > limit;
      if (more) pets.length = versions.length = limit;
      return { pets, versions, more, position };
    },
  };
}
