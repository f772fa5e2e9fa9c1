// Reads of pets: one by id, and pages in id order after a cursor (keyset pagination).
import type { PetId } from '../../types/api.js';
import type { ListOptions, PetPage } from '../pet-store.js';
import { petOf, VERSIONED, versionedOf, type VersionedRow } from './pet-rows.js';
import type { Statement, Statements } from './statement.js';

export const READ_STATEMENTS = {
  get: { name: 'get-pet', text: `SELECT ${VERSIONED} FROM pets WHERE id = $1` },
  // Two statements rather than one with "status = $1 OR $1 IS NULL", so that each keeps its index
  // (the primary key, or (status, id)).
  list: { name: 'list-pets', text: `SELECT ${VERSIONED} FROM pets WHERE id > $1 ORDER BY id LIMIT $2` },
  // Not prepared, so planned for its values at every execution: a prepared statement soon settles on
  // a generic plan, which cannot tell a rare status from a common one and walks the primary key,
  // filtering (10,100 rows read for a page of 100 of a 1% status), where the plan for the values
  // reads the range of (status, id) after the cursor. Planning costs far less than that walk.
  listByStatus: {
    name: 'list-pets-by-status',
    prepared: false,
    text: `SELECT ${VERSIONED} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`,
  },
} as const satisfies Record<string, Statement>;

export function createReads(statements: Statements) {
  return {
    async get(id: PetId) {
      const [pet] = await statements.rows(READ_STATEMENTS.get, [id], versionedOf);
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
          ? await statements.rows(READ_STATEMENTS.list, [from, limit + 1], read)
          : await statements.rows(READ_STATEMENTS.listByStatus, [status, from, limit + 1], read);
      const more = pets.length > limit;
      if (more) pets.length = versions.length = limit;
      return { pets, versions, more };
    },
  };
}
