// replacePet (PUT /pets/{petId}) as a user adds it to a copy of openapi.yaml, for the tests that
// show an added operation is wired, tested and gated from the spec alone: in process
// (test/tooling/adding-an-operation.test.ts) and following the README in a copy of the project
// (test/system/changing-the-api.smoke.ts).
import type { FastifyRequest } from 'fastify';
import { PetNotFound } from '../../src/errors/api-errors.js';
import type { OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import type { Stability } from '../../src/openapi/lifecycle.js';
import type { PetStore } from '../../src/store/pet-store.js';
import type { Pet, PetId } from '../../src/types/api.js';
import { specWith } from './spec.js';

/** openapi.yaml with replacePet added, as a user would write it, as version 1.8.0; `edit` changes it further. */
export function withReplacePet(
  stability?: Stability,
  edit: (replacePet: Record<string, any>, spec: OpenApiDocument) => void = () => {},
): OpenApiDocument {
  return specWith((spec) => {
    spec.info.version = '1.8.0';
    const item = spec.paths['/pets/{petId}']!;
    const getPet = item.get as unknown as { parameters: unknown[]; responses: Record<string, any> };
    const schemas = spec.components.schemas as Record<string, unknown>;
    schemas['PetChanges'] = {
      type: 'object',
      description: 'What to change in a pet; fields left out stay as they are.',
      additionalProperties: false,
      properties: {
        name: { $ref: '#/components/schemas/PetName' },
        categoryId: { $ref: '#/components/schemas/CategoryId' },
        status: { $ref: '#/components/schemas/PetStatus' },
      },
    };
    // getPet's own responses, without its deprecation headers.
    const undeprecated = (response: { headers: Record<string, unknown>; links?: unknown }) => {
      // Nor getPet's ETag, Store-Position and links: this handler keeps no versions, nor positions.
      const {
        Deprecation: _deprecation,
        Sunset: _sunset,
        Link: _link,
        ETag: _etag,
        'Store-Position': _position,
        ...headers
      } = response.headers;
      const { links: _links, ...rest } = structuredClone(response);
      return { ...rest, headers };
    };
    const replacePet: Record<string, any> = {
      operationId: 'replacePet',
      tags: ['pets'],
      summary: 'Replace fields of a pet',
      description: 'Sets the fields the body gives; the others stay as they are.',
      ...(stability === undefined ? {} : { 'x-stability': stability }),
      // getPet's petId; a write takes no Store-Position.
      parameters: structuredClone(getPet.parameters).filter(
        (parameter) => (parameter as { $ref?: string }).$ref !== '#/components/parameters/Store-Position',
      ),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/PetChanges' } } },
      },
      responses: {
        '200': undeprecated(getPet.responses['200']),
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': undeprecated(getPet.responses['404']),
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
        '500': { $ref: '#/components/responses/InternalError' },
        '503': { $ref: '#/components/responses/ServiceUnavailable' },
      },
    };
    Object.assign(item, { put: replacePet });
    const created = spec.paths['/pets']!.post!.responses['201'] as { links: Record<string, unknown> };
    created.links['ReplacePetById'] = {
      operationId: 'replacePet',
      parameters: { petId: '$response.body#/id' },
      description: 'Change the pet just added.',
    };
    edit(replacePet, spec);
  });
}

/** replacePet's handler, as the user writes it (its changes kept beside the store: this store has no update). */
export function replacePet(store: PetStore) {
  const changed = new Map<string, Pet>();
  return async (request: FastifyRequest) => {
    const { petId } = request.params as { petId: PetId };
    const pet = changed.get(String(petId)) ?? (await store.get(petId))?.pet ?? null;
    if (pet === null) throw new PetNotFound(String(petId));
    const updated = { ...pet, ...(request.body as Partial<Pet>) };
    changed.set(String(petId), updated);
    return updated;
  };
}
