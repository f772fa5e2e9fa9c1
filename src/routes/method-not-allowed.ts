// A path the spec defines responds with 405 and an Allow header for every method it does not define,
// before authentication or body parsing: there is no operation to authenticate for.
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { MethodNotAllowed } from '../errors/api-errors.js';
import type { Operation } from '../openapi/openapi-spec.js';
import { toRouteUrl } from '../openapi/openapi-spec.js';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

export function registerMethodNotAllowed(app: FastifyInstance, operations: readonly Operation[], basePath: string) {
  const allowedByPath = new Map<string, Set<string>>();
  for (const { path, method } of operations) {
    allowedByPath.set(path, (allowedByPath.get(path) ?? new Set()).add(method.toUpperCase()));
  }
  for (const [path, allowedSet] of allowedByPath) {
    const allowed = [...allowedSet].join(', ');
    app.route({
      method: METHODS.filter((method) => !allowedSet.has(method)),
      url: basePath + toRouteUrl(path),
      onRequest: async (request, reply) => {
        reply.header('allow', allowed);
        throw new MethodNotAllowed(request.method, basePath + path, allowed);
      },
      /* c8 ignore next -- unreachable: the onRequest hook above always responds */
      handler: async () => undefined,
    });
  }
}
