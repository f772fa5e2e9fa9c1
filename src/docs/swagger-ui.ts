// Swagger UI at /docs for the spec itself, with this instance listed first among the servers
// so that "Try it out" reaches the instance serving the page, not production.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'lossless-json';
import type { OpenAPIV3 } from 'openapi-types';
import type { OpenApiDocument } from '../openapi/openapi-spec.js';

export const DOCS_PREFIX = '/docs';

export async function registerDocs(app: FastifyInstance, spec: OpenApiDocument, basePath: string) {
  await app.register(fastifySwagger, {
    mode: 'static',
    // @fastify/swagger's type stops at OpenAPI 3.0; static mode serves any document as it is.
    specification: { document: spec as unknown as OpenAPIV3.Document },
  });
  // The document may hold integers beyond a double's exact range (an int64 bound): /docs/json
  // writes them as they are, where JSON.stringify would refuse a bigint.
  await app.register(async (docs) => {
    docs.setReplySerializer((payload) => stringify(payload) as string);
    await docs.register(fastifySwaggerUi, {
      routePrefix: DOCS_PREFIX,
      // showExtensions: an operation's x-stability, x-deprecated-at, x-sunset and x-brownouts are announcements to its clients.
      uiConfig: { deepLinking: true, persistAuthorization: false, displayOperationId: true, showExtensions: true },
      transformSpecification: (document) => ({
        ...document,
        servers: [{ url: basePath, description: 'This instance (the one serving these docs)' }, ...spec.servers],
      }),
    });
  });
}
