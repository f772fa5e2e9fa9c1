// The one Ajv set-up used for requests (and by the contract tests for responses).
import { Ajv, type AnySchema } from 'ajv';
import { isInt64 } from './int64.js';

export function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: true,
    strictSchema: false, // OpenAPI schemas carry description, example and x- keywords
    strictNumbers: true,
  });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
  });
  // Ajv's `type: integer` knows only numbers; `int64` also accepts the bigints that hold large values.
  ajv.addKeyword({ keyword: 'int64', schemaType: 'boolean', validate: (_: boolean, data: unknown) => isInt64(data), errors: false });
  return ajv;
}

const UNSUPPORTED_ON_INT64 = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

/** Rewrites `{type: integer, format: int64}` into the `int64` keyword that understands bigint. */
export function toAjvSchema<T extends AnySchema>(schema: T): T {
  return rewrite(schema) as T;
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).map(([key, value]) => [key, rewrite(value)] as const);
  const schema = Object.fromEntries(entries) as Record<string, unknown>;
  if (schema['type'] !== 'integer' || schema['format'] !== 'int64') return schema;
  const unsupported = UNSUPPORTED_ON_INT64.filter((keyword) => keyword in schema);
  if (unsupported.length > 0) {
    throw new Error(`int64 schemas with ${unsupported.join(', ')} are not supported by src/validation/ajv.ts`);
  }
  const { type: _type, format: _format, ...rest } = schema;
  return { ...rest, int64: true };
}
