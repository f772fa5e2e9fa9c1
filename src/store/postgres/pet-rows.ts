// Pets as the pets table holds them, and the SQL every statement that reads or writes them shares.
import type { Pet, PetId, PetStatus } from '../../types/api.js';
import type { VersionedPet } from '../pet-store.js';

export interface PetRow {
  id: PetId;
  name: string;
  category_id: PetId;
  status: PetStatus | null;
}

export interface VersionedRow extends PetRow {
  version: number;
}

export const COLUMNS = 'id, name, category_id, status';
export const VERSIONED = `${COLUMNS}, version`;

// The first half of the two-integer advisory lock key of the create lock: "pets" as ASCII. The key
// is the table's oid in the two-integer key space, so services in other schemas of the database do
// not wait.
const ID_ORDER_LOCK_SPACE = 0x7065_7473;
const ID_ORDER_LOCK = `pg_advisory_xact_lock(${ID_ORDER_LOCK_SPACE}, 'pets'::regclass::oid::int)`;

/**
 * The lock every write to pets takes first, as a CTE named `name`. Creates take their ids, and
 * every write records its events (migration 5's triggers), under it: so commits come in id and
 * feed order, and a page that shows an id shows every smaller id there will ever be. It always
 * comes before row locks, so writers cannot deadlock on it (docs/events.md). `where`, when given,
 * takes it only when that holds.
 */
export const orderLock = (name: string, where = '') =>
  `${name} AS MATERIALIZED (SELECT ${ID_ORDER_LOCK}${where === '' ? '' : ` WHERE ${where}`})`;

export const petOf = (row: PetRow): Pet =>
  row.status === null
    ? { id: row.id, name: row.name, categoryId: row.category_id }
    : { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };

export const versionedOf = (row: VersionedRow): VersionedPet => ({ pet: petOf(row), version: row.version });
