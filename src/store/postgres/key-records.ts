// The records of Idempotency-Keys (creates', changes' and orders'), kept for the retention period and then
// purged by every instance on its own timer (start.ts).
import { purgeInBatches } from './purge.js';
import type { Statement, Statements } from './statement.js';

// The oldest expired records, a batch at a time; SKIP LOCKED lets instances purge side by side.
const purgeOf = (table: string, name: string): Statement => ({
  name,
  text: `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM ${table} WHERE created_at < now() - make_interval(secs => $1::double precision)
      ORDER BY created_at LIMIT $2::int FOR UPDATE SKIP LOCKED))`,
});

export const KEY_STATEMENTS = {
  purgeKeys: purgeOf('idempotency_keys', 'purge-idempotency-keys'),
  purgeChangeKeys: purgeOf('change_keys', 'purge-change-keys'),
  purgeOrderKeys: purgeOf('order_keys', 'purge-order-keys'),
} as const satisfies Record<string, Statement>;

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
