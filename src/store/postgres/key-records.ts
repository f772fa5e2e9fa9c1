// The records of Idempotency-Keys (creates', changes' and orders'), kept for the retention period and then
// purged by every instance on its own timer (start.ts).
import { purgeInBatches } from './purge.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

export const KEY_STATEMENTS = statementsOf('key-records', {
  purgeKeys: 'purge-idempotency-keys',
  purgeChangeKeys: 'purge-change-keys',
  purgeOrderKeys: 'purge-order-keys',
  adoptKeys: 'adopt-key-records',
});

/** An API key's digest and its client's idempotency scope, both hex (src/auth/key-table.ts). */
export interface KeyAdoption {
  digest: string;
  scope: string;
}

/**
 * Moves the Idempotency-Key records made under each key's digest (before version 1.5.0) to its
 * client's scope (adopt_key_records, sql/functions/key-records.sql); how many it moved.
 */
export function createKeyAdoption(statements: Statements) {
  return async (adoptions: readonly KeyAdoption[]): Promise<number> => {
    const { rows } = await statements.run<{ moved: string }>(KEY_STATEMENTS.adoptKeys, [
      adoptions.map(({ digest }) => `\\x${digest}`),
      adoptions.map(({ scope }) => `\\x${scope}`),
    ]);
    return Number(rows[0]!.moved);
  };
}

/** Deletes the records older than `retentionMs`; how many it deleted. */
export function createKeyPurge(statements: Statements, retentionMs: number) {
  return async () => {
    let purged = 0;
    const { purgeKeys, purgeChangeKeys, purgeOrderKeys } = KEY_STATEMENTS;
    for (const statement of [purgeKeys, purgeChangeKeys, purgeOrderKeys]) {
      purged += await purgeInBatches(async (batch) => {
        const { rowCount } = await statements.run(statement, [retentionMs / 1000, batch]);
        /* c8 ignore next -- a DELETE always reports its count; pg's type allows null for statements that do not */
        return rowCount ?? 0;
      });
    }
    return purged;
  };
}
