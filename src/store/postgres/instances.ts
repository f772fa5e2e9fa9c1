// How many instances serve from this database: each writes its heartbeat every HEARTBEAT_MS and
// counts the others seen within LIVE_WITHIN, in one statement. Quotas are divided by that number
// (src/limits/quotas.ts). While the database cannot be reached the last count stays; an instance
// that stops removes its row, so that the others take its share at their next heartbeat.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { statementsOf } from './sql-files.js';

export const HEARTBEAT_MS = 1_000;

const SQL = statementsOf('instances', { beat: 'beat', leave: 'leave' });

export interface Instances {
  /** The live instances, this one included: at least 1. */
  count(): number;
  close(): Promise<void>;
}

export function startInstanceHeartbeat(pool: pg.Pool, everyMs = HEARTBEAT_MS): Instances {
  const id = randomUUID();
  let live = 1;
  const beat = () =>
    pool.query<{ others: number }>(SQL.beat.text, [id]).then(
      ({ rows }) => void (live = 1 + rows[0]!.others),
      () => undefined,
    );
  void beat();
  const timer = setInterval(() => void beat(), everyMs);
  timer.unref();
  return {
    count: () => live,
    async close() {
      clearInterval(timer);
      await pool.query(SQL.leave.text, [id]).catch(() => undefined);
    },
  };
}
