import t from 'tap';
import { isUnavailable } from '../../src/store/postgres/unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

t.test('failures that mean "the database cannot be reached for now"', async (t) => {
  for (const error of [
    withCode('ECONNREFUSED'),
    withCode('ECONNRESET'),
    withCode('ETIMEDOUT'),
    withCode('ENOTFOUND'),
    withCode('08006'), // connection_failure
    withCode('08001'), // sqlclient_unable_to_establish_sqlconnection
    withCode('53300'), // too_many_connections
    withCode('57014'), // query_canceled (statement_timeout)
    withCode('57P01'), // admin_shutdown
    withCode('57P03'), // cannot_connect_now (starting up)
    withCode('40P01'), // deadlock_detected: the transaction was ended, and a retry goes through
    new Error('timeout exceeded when trying to connect'),
    new Error('Query read timeout'),
    new Error('Connection terminated unexpectedly'),
  ]) {
    t.ok(isUnavailable(error), `${(error as { code?: string }).code ?? error.message}`);
  }
});

t.test('failures that are faults, answered 500', async (t) => {
  for (const error of [
    withCode('42P01', 'relation "pets" does not exist'),
    withCode('23505'),
    withCode('22P02'),
    new Error('boom'),
    'not an error',
    undefined,
  ]) {
    t.notOk(isUnavailable(error), String((error as { code?: string })?.code ?? error));
  }
});
