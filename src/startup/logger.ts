// The service's logger: pino, at LOG_LEVEL, to stdout through a destination that writes what is
// still buffered when the process exits, however it exits (but SIGKILL); the Authorization header
// never reaches a line.
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createLogDestination } from '../logging/log-destination.js';

export function serviceLogger(level: string): FastifyBaseLogger {
  const stream = createLogDestination(1);
  process.once('exit', () => stream.flushSync());
  return pino({ level, redact: ['req.headers.authorization'] }, stream) as FastifyBaseLogger;
}
