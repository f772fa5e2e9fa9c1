import { loadSpec, type OpenApiDocument } from '../../src/spec/openapi-spec.js';

/** A private copy of openapi.yaml with one change, for tests of how the service reads its spec. */
export function specWith(change: (spec: OpenApiDocument) => void): OpenApiDocument {
  const spec = structuredClone(loadSpec());
  change(spec);
  return spec;
}
