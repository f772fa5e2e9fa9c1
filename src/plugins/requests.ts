// How a request is read: JSON bodies (application/json and merge-patch) parsed exactly, parameters
// and bodies validated against the spec, no query parameter the spec does not declare, and every
// error, a route not found included, served as the spec's Error body.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { RouteNotFound } from '../errors/api-errors.js';
import type { ErrorHandler } from '../errors/error-handler.js';
import { collapseJsonContent } from '../routes/json-content-schemas.js';
import { parseJsonBody } from '../validation/json-body-parser.js';
import { createValidatorCompiler, rejectUndeclaredQuery } from '../validation/request-validator.js';

async function requests(app: FastifyInstance, { handleError }: { handleError: ErrorHandler }) {
  // Set by authentication; declared here so every request object has the same shape.
  app.decorateRequest('apiKeyScope', '');
  app.decorateRequest('client', '');
  app.decorateRequest('roles', null);
  app.decorateRequest('rateLimited', false);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(async (request) => {
    throw new RouteNotFound(request.method, request.url.replace(/\?.*$/s, ''));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'buffer' }, parseJsonBody);
  app.setValidatorCompiler(createValidatorCompiler());
  app.addHook('onRoute', rejectUndeclaredQuery);
  app.addHook('onRoute', collapseJsonContent);
}

export default fp(requests, { name: 'requests' });
