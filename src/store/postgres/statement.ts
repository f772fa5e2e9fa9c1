// How the PostgreSQL store runs a statement: by name (what metrics and spans call it, and the name
// it is prepared under), through the instruments, with a database that cannot be reached told to
// the client as 503 (anything else is a fault: 500).
import type pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
import type { StatementInstrument } from './statement-instrument.js';
import { isUnavailable } from './unavailable.js';

export interface Statement {
  /** What metrics and spans call it, and the name it is prepared under once per connection. */
  name: string;
  text: string;
  /**
   * False: sent unnamed, so planned for its values at every execution (a prepared statement soon
   * settles on one generic plan for every value).
   */
  prepared?: false;
}

export interface Statements {
  /** The statement's result. */
  run<Row extends pg.QueryResultRow>(statement: Statement, values: unknown[]): Promise<pg.QueryResult<Row>>;
  /** The statement's rows, each mapped. */
  rows<T, Row extends pg.QueryResultRow>(statement: Statement, values: unknown[], map: (row: Row) => T): Promise<T[]>;
}

/** The 503 a client can retry when the database cannot be reached; anything else as it is. */
export function unavailableAs503(error: unknown): never {
  throw isUnavailable(error) ? new ServiceUnavailable() : error;
}

export function createStatements(pool: pg.Pool, instrument: StatementInstrument | undefined): Statements {
  const query = <Row extends pg.QueryResultRow>(statement: Statement, values: unknown[]) =>
    pool.query<Row>(
      statement.prepared === false
        ? { text: statement.text, values }
        : { name: statement.name, text: statement.text, values },
    );
  const instrumented =
    instrument === undefined
      ? <T>(_name: string, work: () => Promise<T>) => work()
      : <T>(name: string, work: () => Promise<T>) => instrument(name, work);
  const run = async <Row extends pg.QueryResultRow>(statement: Statement, values: unknown[]) => {
    try {
      return await instrumented(statement.name, () => query<Row>(statement, values));
    } catch (error) {
      return unavailableAs503(error);
    }
  };
  return withRows(run);
}

/** `run`, and `rows` through it. */
export function withRows(run: Statements['run']): Statements {
  return {
    run,
    // The rows, each mapped, and then the driver's array emptied. V8 may decide to allocate the
    // array that pg's Result makes for every statement in the old generation (allocation-site
    // pretenuring); such an array, dead but not yet collected, keeps every young row it holds alive
    // through young collections, so every row of every response was copied and promoted: CPU per page
    // of 100 rows cost 20-35% more (docs/performance.md). Emptied, it holds nothing young.
    async rows<T, Row extends pg.QueryResultRow>(statement: Statement, values: unknown[], map: (row: Row) => T) {
      const { rows } = await run<Row>(statement, values);
      const mapped = rows.map(map);
      rows.length = 0;
      return mapped;
    },
  };
}
