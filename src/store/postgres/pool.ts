// The one pool of a PostgreSQL store. int8 is read digit for digit: a number when a double holds it
// exactly, else a bigint. Set on this pool only, not on the driver's global parsers.
import pg from 'pg';
import { exactInteger } from '../../validation/int64.js';

const INT8 = 20;

export function createPool(config: pg.PoolConfig, onPoolError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({
    ...config,
    types: {
      getTypeParser: ((oid: number, format?: 'text') =>
        oid === INT8 ? exactInteger : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', onPoolError);
  return pool;
}
