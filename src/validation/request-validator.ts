// Fastify's validator compiler: strict for every part of a request. Bodies are never coerced;
// path, query and header text becomes the integer, number or boolean its schema wants only when it
// is plain text of one (decoded()).
import type { FastifySchemaCompiler, FastifySchemaValidationError, RouteOptions } from 'fastify';
import type { Ajv, AnySchema, ValidateFunction } from 'ajv';
import { createAjv, toAjvSchema } from './ajv.js';
import { exactInteger } from './int64.js';
import { escapePointer } from './json-pointer.js';

interface PropertySchema {
  type?: unknown;
  format?: unknown;
}

interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  additionalProperties?: unknown;
}

interface HeadersSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

type Validator = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

const DECIMAL_INTEGER = /^-?\d+$/;
// Not hex, not "1.", not ".5", not "+1", not surrounded by spaces.
const DECIMAL_NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

// Validators compiled from the same schema text are the same function: every app this process
// builds shares them (the most recent COMPILED_KEPT). The service builds one app, but a test process
// builds dozens and npm run compat one per released spec, and Ajv's compile was most of that:
// 13 s of CPU in npm test.
const COMPILED_KEPT = 1_000;
const compiled = new Map<string, ValidateFunction>();

function compile(ajv: Ajv, schema: AnySchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
    if (compiled.size > COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
  }
  return validate;
}

export function createValidatorCompiler(): FastifySchemaCompiler<AnySchema> {
  let ajv: Ajv | undefined;
  const compileOnce = (schema: AnySchema) => compile((ajv ??= createAjv()), toAjvSchema(schema));
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') return compileOnce(schema);
    // Requests carry many headers the spec has no business with (Host, User-Agent…): only those it
    // declares are checked, by their lower-case names as Node gives them (Fastify lower-cases a
    // header schema itself only when no validator compiler is set).
    if (httpPart === 'headers') {
      const headers = lowerCaseHeaders(schema as HeadersSchema);
      const validate = compileOnce(headers as AnySchema);
      // Most operations declare only string headers: their requests decode nothing.
      const typed = Object.entries(headers.properties).filter(([, property]) => DECODERS.has(property.type));
      if (typed.length === 0) return validate;
      const check: Validator = (data) => {
        const values = data as Record<string, unknown>;
        for (const [name, property] of typed) {
          const raw = values[name];
          const value = typeof raw === 'string' ? decoded(property, raw) : undefined;
          if (value !== undefined) values[name] = value;
        }
        if (validate(data)) return true;
        check.errors = validate.errors as FastifySchemaValidationError[];
        return false;
      };
      return check;
    }
    // Parameters the spec does not declare are rejected, never ignored.
    const strict = { additionalProperties: false, ...(schema as object) } as ObjectSchema;
    const validate = compileOnce(strict as AnySchema);
    // Decodes in place and returns true, so a valid request allocates nothing here: this runs on
    // every request (its cost: docs/performance/earlier-findings.md, "Earlier findings").
    const check: Validator = (data) => {
      const errors = decodeParameters(strict, data as Record<string, unknown>);
      if (errors === undefined && validate(data)) return true;
      check.errors = errors ?? (validate.errors as FastifySchemaValidationError[]);
      return false;
    };
    return check;
  };
}

/**
 * Turns plain decimal integers and numbers into numbers where the schema wants them, `true` and `false`
 * into booleans where it wants a boolean (any other text is refused as not one), and reports
 * repeated parameters. Fastify's query parser gives an object without prototype, so a
 * parameter named __proto__ stays a key and is rejected as unknown.
 */
function decodeParameters(
  schema: ObjectSchema,
  data: Record<string, unknown>,
): FastifySchemaValidationError[] | undefined {
  let errors: FastifySchemaValidationError[] | undefined;
  for (const name in data) {
    const raw = data[name];
    if (Array.isArray(raw)) {
      (errors ??= []).push({
        keyword: 'once',
        instancePath: `/${escapePointer(name)}`,
        schemaPath: '',
        params: {},
        message: 'must be given at most once',
      });
      continue;
    }
    const property = schema.properties?.[name];
    const value = property === undefined || typeof raw !== 'string' ? undefined : decoded(property, raw);
    if (value !== undefined) data[name] = value;
  }
  return errors;
}

/**
 * Text as the value a schema's type wants, by type, when it is plain text of one: a decimal
 * integer, a decimal number as JSON writes one (leading zeros allowed, as for integers) that a
 * double holds, `true` or `false`. Undefined otherwise: the text stays as it is, and the schema
 * refuses it. The types listed here are the ones decoded; any other is left as text.
 */
const DECODERS = new Map<unknown, (raw: string, property: PropertySchema) => unknown>([
  [
    'integer',
    (raw, property) =>
      DECIMAL_INTEGER.test(raw) ? (property.format === 'int64' ? exactInteger(raw) : Number(raw)) : undefined,
  ],
  [
    'number',
    (raw) => {
      const value = DECIMAL_NUMBER.test(raw) ? Number(raw) : NaN;
      return Number.isFinite(value) ? value : undefined;
    },
  ],
  ['boolean', (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined)],
]);

const decoded = (property: PropertySchema, raw: string): unknown => DECODERS.get(property.type)?.(raw, property);

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

function lowerCaseHeaders({
  properties = {},
  required,
  ...rest
}: HeadersSchema): HeadersSchema & Required<Pick<HeadersSchema, 'properties'>> {
  return {
    ...rest,
    properties: Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name.toLowerCase(), schema])),
    // Kept for a schema that does not list them.
    /* c8 ignore next -- glue always lists the required headers (none is an empty list) */
    ...(required === undefined ? {} : { required: required.map((name) => name.toLowerCase()) }),
  };
}
