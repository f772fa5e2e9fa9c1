// The records of Idempotency-Keys (creates', changes' and orders'), kept for the retention period and then
// purged by every instance on its own timer (start.ts).
import { purgeInBatches } from './purge.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

export const KEY_STATEMENTS = statementsOf('key-records', {
  purgeKeys: 'purge-idempotency-keys',
  purgeChangeKeys: 'purge-change-keys',
  purgeOrderKeys: 'purge-order-keys',
});

/** Deletes the records older than `retentionMs`; how many it deleted. */
export function createKeyPurge(statements: Statements, retentionMs: number) {
  return async () => {
    let purged = 0;
    for (const statement of Object.values(KEY_STATEMENTS)) {
      purged += await purgeInBatches(async (batch) => {
        const { rowCount } = await statements.run(statement, [retentionMs / 1000, batch]);
        /* c8 ignore next -- a DELETE always reports its count; pg's type allows null for statements that do not */
        return rowCount ?? 0;
      });
    }
    return purged;
  };
}
