// One log line per answered request, written when the answer has been sent: what an operator
// needs to follow traffic, and nothing a client could use against another (no headers, no
// query, no body). Fastify's own request logging (two lines per request, with the URL and the
// remote address) is turned off in app.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

export function registerRequestLog(app: FastifyInstance): void {
  // Nothing at all per request when the level hides the line.
  if (!(app.log as Logger).isLevelEnabled('info')) return;
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(requestFields(request, reply), 'request completed');
    done();
  });
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
