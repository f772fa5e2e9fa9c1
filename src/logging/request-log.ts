// One log line per answered request, written when the answer has been sent: what an operator
// needs to follow traffic, and nothing a client could use against another (no headers, no
// query, no body). Fastify's own pair of lines per request (incoming, completed, with the URL and
// the remote address) is replaced through its LogController, which it calls for every request.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Fastify's stand-in for `logger: false` has no isLevelEnabled: nothing is built for it.
    const log = request.log as Partial<Logger>;
    if (error) log.error?.({ ...requestFields(request, reply), err: error }, 'request failed while answering');
    else if (log.isLevelEnabled?.('info') === true) log.info!(requestFields(request, reply), 'request completed');
  }
}

function requestFields(request: FastifyRequest, reply: FastifyReply) {
  const operationId = (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
  const query = request.url.indexOf('?');
  return {
    method: request.method,
    path: query === -1 ? request.url : request.url.slice(0, query),
    status: reply.statusCode,
    responseTime: Math.round(reply.elapsedTime * 100) / 100,
    ...(operationId === undefined ? {} : { operationId }),
  };
}
