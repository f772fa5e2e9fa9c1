// Pets as the pets table holds them, and as the store gives them.
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

export const petOf = (row: PetRow): Pet =>
  row.status === null
    ? { id: row.id, name: row.name, categoryId: row.category_id }
    : { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };

export const versionedOf = (row: VersionedRow): VersionedPet => ({ pet: petOf(row), version: row.version });
