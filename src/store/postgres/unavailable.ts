// Which failures of the database mean "not reachable for the moment" (given 503, retry later)
// rather than a fault in the service (500): the connection could not be made, was lost, or timed
// out, the server is starting, stopping or out of connections, or it ended the transaction to
// break a deadlock (which a retry does not meet: two releases that take the write lock and a
// change key in opposite orders, side by side during a rolling upgrade to migration 8).
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
// SQLSTATE classes and codes: 08 connection exception, 53 insufficient resources, 57014 query
// canceled (statement_timeout), 57P01-57P05 shutdown, cannot connect now, idle session timeout,
// 40P01 deadlock detected.
const UNAVAILABLE_SQLSTATE = /^(08|53|57014|57P0[1-5]|40P01)/;
// What node-postgres throws for its own time limits and lost connections, which carry no code.
const DRIVER_MESSAGES =
  /timeout exceeded when trying to connect|Query read timeout|Connection terminated|Client has encountered a connection error/i;

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  return DRIVER_MESSAGES.test(error.message);
}
