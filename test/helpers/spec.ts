import { loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';

// openapi.yaml parsed once per test process: the YAML takes 25-45 ms, and most test files build
// many apps. Callers get copies, so that no test sees another's edits.
let parsed: OpenApiDocument | undefined;

/** A private copy of openapi.yaml as the service reads it. */
export function specCopy(): OpenApiDocument {
  parsed ??= loadSpec();
  return structuredClone(parsed);
}

/** A private copy of openapi.yaml with one change, for tests of how the service reads its spec. */
export function specWith(change: (spec: OpenApiDocument) => void): OpenApiDocument {
  const spec = specCopy();
  change(spec);
  return spec;
}
