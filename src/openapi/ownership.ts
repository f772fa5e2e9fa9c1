// Objects a client owns, as openapi.yaml marks them: a schema's `x-owner` names the property that
// holds the owning client's name, and the role whose keys see and move every client's objects
// (the store's staff). Read from the spec, so the role lives in one place.
import type { OpenApiDocument } from './openapi-spec.js';

export interface Ownership {
  /** The property of the object that names its client. */
  property: string;
  /** The role whose keys see and move every client's objects. */
  seenByAllWith: string;
}

/** The `x-owner` of the schema `name`, or undefined when its objects are not owned. Throws on a malformed marker. */
export function ownershipOf(spec: OpenApiDocument, name: string): Ownership | undefined {
  const schema = (spec.components.schemas as Record<string, Record<string, unknown> | undefined>)[name];
  const marker = schema?.['x-owner'] as { property?: unknown; seenByAllWith?: unknown } | undefined;
  if (marker === undefined) return undefined;
  const properties = (schema!['properties'] ?? {}) as Record<string, unknown>;
  if (typeof marker.property !== 'string' || !(marker.property in properties))
    throw new Error(`schemas.${name}.x-owner.property must name one of its properties`);
  if (typeof marker.seenByAllWith !== 'string')
    throw new Error(`schemas.${name}.x-owner.seenByAllWith must be a role name`);
  return { property: marker.property, seenByAllWith: marker.seenByAllWith };
}
