// Creates, written in batches (batch-queue.ts): one statement, so one transaction and one commit,
// for every create of a batch. A create is committed (on disk, with PostgreSQL's default
// synchronous_commit) before it is served. The statements are sql/statements/pet-creates.sql.
import type { IdempotencyKey } from '../../idempotency/idempotency-key.js';
import type { NewPet } from '../../types/api.js';
import type { CreatedOnce } from '../pet-store.js';
import { petOf, type PetRow } from './pet-rows.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

interface CreatedRow extends PetRow {
  replayed: boolean;
}

/** One create waiting for its batch: its pet, and its Idempotency-Key when it sent one. */
export interface Creation {
  pet: NewPet;
  key: IdempotencyKey | undefined;
}

export const CREATE_STATEMENTS = statementsOf('pet-creates', {
  // A batch of one (every create when the service is not busy): the array form costs a lone
  // create about 5% more latency (docs/performance.md).
  create: 'create-pet',
  createPets: 'create-pets',
  createOnce: 'create-pet-once',
  createPetsOnce: 'create-pets-once',
});

const createdOf = (row: CreatedRow): CreatedOnce => ({ pet: petOf(row), replayed: row.replayed });
const columnsOf = (creations: readonly Creation[]) => [
  creations.map(({ pet }) => pet.name),
  creations.map(({ pet }) => pet.categoryId),
  creations.map(({ pet }) => pet.status ?? null),
];

/** Writes a batch of creates in one statement; each one's response, in the batch's order. */
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
