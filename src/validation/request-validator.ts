// Fastify's validator compiler: strict for every part of a request. Bodies are never coerced;
// query and path strings become numbers only when they are plain decimal integers.
import type { FastifySchemaCompiler, FastifySchemaValidationError, RouteOptions } from 'fastify';
import type { AnySchema } from 'ajv';
import { createAjv, toAjvSchema } from './ajv.js';
import { exactInteger } from './int64.js';
import { escapePointer } from './json-pointer.js';

interface ObjectSchema {
  properties?: Record<string, { type?: unknown; format?: unknown }>;
  additionalProperties?: unknown;
}

type ValidationResult = { value: unknown } | false;
type Validator = ((data: unknown) => ValidationResult) & { errors?: FastifySchemaValidationError[] | null };

const DECIMAL_INTEGER = /^-?\d+$/;

export function createValidatorCompiler(ajv = createAjv()): FastifySchemaCompiler<AnySchema> {
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') return ajv.compile(toAjvSchema(schema));
    // Parameters the spec does not declare are rejected, never ignored.
    const strict = { additionalProperties: false, ...(schema as object) } as ObjectSchema;
    const validate = ajv.compile(toAjvSchema(strict as AnySchema));
    const check: Validator = (data) => {
      const { value, errors } = decodeParameters(strict, data as Record<string, unknown>);
      if (errors.length === 0 && validate(value)) return { value };
      check.errors = errors.length > 0 ? errors : (validate.errors as FastifySchemaValidationError[]);
      return false;
    };
    return check;
  };
}

function decodeParameters(schema: ObjectSchema, data: Record<string, unknown>) {
  // No prototype: a parameter named __proto__ must stay a key, to be rejected as unknown.
  const value: Record<string, unknown> = Object.create(null);
  const errors: FastifySchemaValidationError[] = [];
  for (const [name, raw] of Object.entries(data)) {
    if (Array.isArray(raw)) {
      errors.push({ keyword: 'once', instancePath: `/${escapePointer(name)}`, schemaPath: '', params: {}, message: 'must be given at most once' });
      continue;
    }
    const property = schema.properties?.[name];
    const isInteger = property?.type === 'integer' && typeof raw === 'string' && DECIMAL_INTEGER.test(raw);
    value[name] = isInteger ? (property.format === 'int64' ? exactInteger(raw) : Number(raw)) : raw;
  }
  return { value, errors };
}

/**
 * onRoute hook: an operation without query parameters still gets a (empty) query schema,
 * so that a query string sent to it is rejected rather than ignored.
 */
export function rejectUndeclaredQuery(routeOptions: RouteOptions) {
  const schema = routeOptions.schema as { operationId?: string; querystring?: unknown } | undefined;
  if (schema?.operationId !== undefined && schema.querystring === undefined) {
    schema.querystring = { type: 'object', properties: {} };
  }
}
