// Swagger UI at /docs for the spec itself, with this instance listed first among the servers
// so that "Try it out" reaches the instance serving the page, not production.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'lossless-json';
import type { OpenAPIV3 } from 'openapi-types';
import { requiredRolesOf } from '../auth/roles.js';
import { operationsOf, type OpenApiDocument } from '../openapi/openapi-spec.js';

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
      // showExtensions: an operation's x-stability, x-deprecated-at, x-sunset and x-brownouts are announcements to its
      // clients.
      uiConfig: { deepLinking: true, persistAuthorization: false, displayOperationId: true, showExtensions: true },
      transformSpecification: (document) => ({
        ...document,
        servers: [{ url: basePath, description: 'This instance (the one serving these docs)' }, ...spec.servers],
        paths: withRolesShown(spec),
      }),
    });
  });
}

/**
 * The paths, each operation's description ending with the roles its security requirement names:
 * Swagger UI lists a requirement's names only for OAuth schemes, and a caller needs to know them.
 */
function withRolesShown(spec: OpenApiDocument): OpenApiDocument['paths'] {
  const paths = structuredClone(spec.paths);
  for (const operation of operationsOf(spec)) {
    const roles = requiredRolesOf(operation, spec);
    if (roles.length === 0) continue;
    const shown = paths[operation.path]![operation.method]! as { description?: string };
    const needs = `**Roles**: ${roles.map((role) => `\`${role}\``).join(', ')}. A key without ${roles.length === 1 ? 'it' : 'them'} gets 403 \`INSUFFICIENT_SCOPE\`.`;
    shown.description = shown.description === undefined ? needs : `${shown.description}\n\n${needs}`;
  }
  return paths;
}
