// Pets in PostgreSQL, for deployments of many stateless instances on one database. Every operation
// is one statement, so one round trip; a create is committed (on disk, with PostgreSQL's default
// synchronous_commit) before it is answered.
import pg from 'pg';
import { ServiceUnavailable } from '../errors/api-errors.js';
import type { NewPet, Pet, PetId, PetStatus } from '../types/api.js';
import { exactInteger } from '../validation/int64.js';
import type { ListOptions, PetPage, PetStore } from './pet-store.js';
import { isUnavailable } from './postgres/unavailable.js';

const INT8 = 20;

interface PetRow {
  id: PetId;
  name: string;
  category_id: PetId;
  status: PetStatus | null;
}

const COLUMNS = 'id, name, category_id, status';
// The first half of the two-integer advisory lock key of the create lock: "pets" as ASCII.
const ID_ORDER_LOCK_SPACE = 0x7065_7473;

/** The statement of each operation; the named ones are prepared once per connection. */
export const STATEMENTS = {
  // Creates take their id and commit one at a time, under a transaction-level advisory lock taken
  // before the identity's nextval: so commits come in id order, and a page that shows an id shows
  // every smaller id there will ever be. Without it, a create holding id 4 could commit after the
  // one holding 5, and a client that had paged past 5 would never see 4. The key is the table's
  // oid in the two-integer key space, so services in other schemas of the database do not wait.
  create: {
    name: 'create-pet',
    text: `WITH in_id_order AS MATERIALIZED (SELECT pg_advisory_xact_lock(${ID_ORDER_LOCK_SPACE}, 'pets'::regclass::oid::int))
      INSERT INTO pets (name, category_id, status) SELECT $1, $2, $3 FROM in_id_order RETURNING ${COLUMNS}`,
  },
  get: { name: 'get-pet', text: `SELECT ${COLUMNS} FROM pets WHERE id = $1` },
  // Two statements rather than one with "status = $1 OR $1 IS NULL", so that each keeps its index
  // (the primary key, or (status, id)).
  list: { name: 'list-pets', text: `SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2` },
  // Unnamed, so planned for its values at every execution: a named statement soon settles on a
  // generic plan, which cannot tell a rare status from a common one and walks the primary key,
  // filtering (10,100 rows read for a page of 100 of a 1% status), where the plan for the values
  // reads the range of (status, id) after the cursor. Planning costs far less than that walk.
  listByStatus: { text: `SELECT ${COLUMNS} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3` },
} as const;

export interface PostgresPetStore extends PetStore {
  /** The pool, for migrations. */
  pool: pg.Pool;
  /** Whether the database answers and holds the schema. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export interface PostgresStoreOptions {
  /** Told about errors of idle connections (the database went away); they never crash the process. */
  onPoolError?: (error: Error) => void;
}

export function createPostgresPetStore(config: pg.PoolConfig, { onPoolError = () => undefined }: PostgresStoreOptions = {}): PostgresPetStore {
  const pool = new pg.Pool({
    ...config,
    // int8 is read digit for digit: a number when a double holds it exactly, else a bigint. Set on
    // this pool only, not on the driver's global parsers.
    types: { getTypeParser: ((oid: number, format?: 'text') => (oid === INT8 ? exactInteger : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  });
  pool.on('error', onPoolError);
  // A database that cannot be reached is the client's to retry (503), anything else is a fault (500).
  const query = async (config: pg.QueryConfig): Promise<PetRow[]> => {
    try {
      return (await pool.query<PetRow>(config)).rows;
    } catch (error) {
      throw isUnavailable(error) ? new ServiceUnavailable() : error;
    }
  };
  const petOf = (row: PetRow): Pet =>
    row.status === null ? { id: row.id, name: row.name, categoryId: row.category_id } : { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };

  return {
    pool,
    async create({ name, categoryId, status }: NewPet) {
      const rows = await query({ ...STATEMENTS.create, values: [name, categoryId, status ?? null] });
      return petOf(rows[0]!);
    },

    async get(id: PetId) {
      const rows = await query({ ...STATEMENTS.get, values: [id] });
      return rows.length === 0 ? null : petOf(rows[0]!);
    },

    // One row more than the page tells whether more follow.
    async list({ limit, status, after }: ListOptions): Promise<PetPage> {
      const from = after ?? 0;
      const rows =
        status === undefined
          ? await query({ ...STATEMENTS.list, values: [from, limit + 1] })
          : await query({ ...STATEMENTS.listByStatus, values: [status, from, limit + 1] });
      const more = rows.length > limit;
      return { pets: (more ? rows.slice(0, limit) : rows).map(petOf), more };
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
