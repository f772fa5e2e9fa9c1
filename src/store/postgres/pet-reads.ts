// Reads of pets: one by id, and pages in id order after a cursor (keyset pagination).
import type { Pet, PetId } from '../../types/api.js';
import type { ListOptions, PetPage } from '../pet-store.js';
import { petOf, VERSIONED, versionedOf, type VersionedRow } from './pet-rows.js';
import type { Statement, Statements } from './statement.js';
import { FEED_END } from './event-feed.js';

// The newest event the page reflects, read in the page's statement, so in its snapshot: events
// commit in seq order under the feed's lock (docs/events.md), so what one snapshot sees of the feed
// is a prefix, and it holds exactly the changes the snapshot's pets show. One row even for an
// empty page (the LEFT JOIN), which then has a null id.
const PAGE = (pets: string) => `SELECT p.*, f.position FROM (SELECT ${FEED_END} AS position) f
  LEFT JOIN LATERAL (${pets}) p ON true`;

interface PageRow extends Omit<VersionedRow, 'id'> {
  id: VersionedRow['id'] | null;
  position: number;
}

export const READ_STATEMENTS = {
  get: { name: 'get-pet', text: `SELECT ${VERSIONED} FROM pets WHERE id = $1` },
  // Two statements rather than one with "status = $1 OR $1 IS NULL", so that each keeps its index
  // (the primary key, or (status, id)).
  list: { name: 'list-pets', text: PAGE(`SELECT ${VERSIONED} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`) },
  // Not prepared, so planned for its values at every execution: a prepared statement soon settles on
  // a generic plan, which cannot tell a rare status from a common one and walks the primary key,
  // filtering (10,100 rows read for a page of 100 of a 1% status), where the plan for the values
  // reads the range of (status, id) after the cursor. Planning costs far less than that walk.
  listByStatus: {
    name: 'list-pets-by-status',
    prepared: false,
    text: PAGE(`SELECT ${VERSIONED} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`),
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
      const { rows } =
        status === undefined
          ? await statements.run<PageRow>(READ_STATEMENTS.list, [from, limit + 1])
          : await statements.run<PageRow>(READ_STATEMENTS.listByStatus, [status, from, limit + 1]);
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
