import type { RouteOptions } from 'fastify';
import t from 'tap';
import { collapseJsonContent } from '../../src/routes/json-content-schemas.js';

const pet = { type: 'object', properties: { id: { type: 'integer' } } };
const error = { type: 'object', properties: { code: { type: 'string' } } };
const json = (schema: object) => ({ content: { 'application/json': { schema } } });

function collapsed(schema: object | undefined): unknown {
  const routeOptions = { method: 'GET', url: '/v1/pets', handler: () => undefined, schema } as RouteOptions;
  collapseJsonContent(routeOptions);
  return routeOptions.schema;
}

t.test('a body or response whose only media type is application/json becomes its schema', async (t) => {
  t.strictSame(collapsed({ body: json(pet), response: { 201: json(pet), 400: json(error) } }), {
    body: pet,
    response: { 201: pet, 400: error },
  });
});

t.test('anything else is left for Fastify to choose per media type', async (t) => {
  const twoTypes = { content: { 'application/json': { schema: pet }, 'application/xml': { schema: pet } } };
  const otherType = { content: { 'text/plain': { schema: { type: 'string' } } } };
  const noSchema = { content: { 'application/json': {} } };
  const schema = { body: otherType, response: { 200: twoTypes, 201: noSchema, 202: pet } };
  t.strictSame(collapsed(structuredClone(schema)), schema);
});

t.test('a route without a schema, or without a body or responses, is left as it is', async (t) => {
  t.equal(collapsed(undefined), undefined);
  t.strictSame(collapsed({ querystring: pet }), { querystring: pet });
});
