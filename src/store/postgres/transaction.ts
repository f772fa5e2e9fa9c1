// One transaction on a client of the pool, for the work that needs more than one statement (a
// migration, a change with its Idempotency-Key). `work` ends the transaction itself, with COMMIT or
// ROLLBACK; if it throws, the transaction is rolled back and the error is the one reported.
import type pg from 'pg';

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A connection lost while checked out is also emitted as an error event, which would otherwise
  // crash the process; the statement under way fails with it too, and that failure is reported.
  const lost = () => {
    broken = true;
  };
  client.on('error', lost);
  let done: T;
  try {
    await client.query('BEGIN');
    done = await work(client);
  } catch (error) {
    // The original error is the one to report: when the connection itself failed, ROLLBACK fails
    // too (the server rolls back on its own), and that connection must not go back to the pool.
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
  return done;
}
