// The one Ajv set-up used for requests (and by the contract tests for responses).
import { Ajv, type AnySchema, type ErrorObject } from 'ajv';
import formats from 'ajv-formats';
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
  // The formats of JSON Schema and OpenAPI (date-time, date, uuid, email, uri, int32…), checked as
  // ajv-formats defines them: without them Ajv ignores a format, and a request the spec refuses
  // would be served. An int64 never reaches Ajv as a format (toAjvSchema). `.default`: the
  // package is CommonJS, which TypeScript sees as a namespace, and it names itself `default` too.
  formats.default(ajv);
  // Ajv's `type: integer` and its numeric keywords know only doubles; `int64` also accepts the
  // bigints that hold large values, and applies the schema's constraints to them exactly.
  ajv.addKeyword({
    keyword: 'int64',
    schemaType: ['boolean', 'object'],
    errors: true,
    compile: (constraints: true | Int64Constraints) => int64Check(constraints === true ? {} : constraints),
  });
  return ajv;
}

/** The constraints of an int64 schema, as exact decimal text (JSON Schema keywords of the same names). */
export interface Int64Constraints {
  minimum?: string;
  maximum?: string;
  exclusiveMinimum?: string;
  exclusiveMaximum?: string;
  multipleOf?: string;
  enum?: string[];
  const?: string;
}

/** What an int64 value broke, for error messages: the keyword, and its value as the spec writes it. */
export interface Int64ErrorParams {
  constraint?: keyof Int64Constraints;
  limit?: string;
  allowedValues?: string[];
}

const CONSTRAINTS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'enum',
  'const',
] as const;

/** Rewrites `{type: integer, format: int64}` into the `int64` keyword, which understands bigint. */
export function toAjvSchema<T extends AnySchema>(schema: T): T {
  return rewrite(schema, ({ type: _type, format: _format, ...rest }, constraints) => ({
    ...rest,
    int64: Object.keys(constraints).length === 0 ? true : constraints,
  })) as T;
}

/**
 * A spec with nothing JSON.stringify refuses, for fastify-openapi-glue, which copies the spec
 * that way: each int64 schema's constraints move into `x-int64`, as exact decimal text, where
 * toAjvSchema finds them again; any other bigint (an example, say) becomes the nearest double.
 */
export function withInt64ConstraintsAsText<T>(spec: T): T {
  return rewrite(spec, (schema, constraints) =>
    Object.keys(constraints).length === 0 ? schema : { ...schema, [INT64_CONSTRAINTS]: constraints },
  ) as T;
}

const INT64_CONSTRAINTS = 'x-int64';

type Int64Rewrite = (schema: Record<string, unknown>, constraints: Int64Constraints) => Record<string, unknown>;

function rewrite(node: unknown, int64: Int64Rewrite): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, int64));
  // Outside an int64 schema's constraints, a value beyond a double's exact range means a double.
  if (typeof node === 'bigint') return Number(node);
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const each = (entries: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(entries).map(([key, value]) => [key, rewrite(value, int64)]));
  if (object['type'] !== 'integer' || object['format'] !== 'int64') return each(object);
  // The constraints are taken first, exactly, before anything in the schema becomes a double.
  const { rest, constraints } = int64ConstraintsOf(object);
  return int64(each(rest), constraints);
}

/** An int64 schema's constraints as exact text (from its keywords, or from x-int64), and the schema without them. */
function int64ConstraintsOf(schema: Record<string, unknown>): {
  rest: Record<string, unknown>;
  constraints: Int64Constraints;
} {
  const { [INT64_CONSTRAINTS]: asText, ...rest } = schema;
  const constraints: Int64Constraints = { ...(asText as Int64Constraints | undefined) };
  for (const keyword of CONSTRAINTS) {
    const value = rest[keyword];
    if (value === undefined) continue;
    delete rest[keyword];
    if (keyword === 'enum') {
      if (!Array.isArray(value)) throw new Error(`an int64 schema's enum must be a list, not ${String(value)}`);
      constraints.enum = value.map((item) => exactText(item, keyword));
    } else {
      constraints[keyword] = exactText(value, keyword);
    }
  }
  return { rest, constraints };
}

/** A number of the spec as exact decimal text: integers as they are, other doubles as their shortest decimal. */
function exactText(value: unknown, keyword: string): string {
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number' && Number.isFinite(value))
    return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  throw new Error(`an int64 schema's ${keyword} must be a number, not ${JSON.stringify(value)}`);
}

/** A rational p/q from the decimal text of a double (`0.25`, `1e-7`), exactly as written. */
function rational(text: string): { p: bigint; q: bigint } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text)!;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let p = BigInt(sign + whole + fraction);
  let q = 10n ** BigInt(fraction.length);
  const shift = Number(exponent);
  if (shift >= 0) p *= 10n ** BigInt(shift);
  else q *= 10n ** BigInt(-shift);
  return { p, q };
}

const floorDivide = (p: bigint, q: bigint) => (p >= 0n ? p / q : -((-p + q - 1n) / q));
const ceilDivide = (p: bigint, q: bigint) => -floorDivide(-p, q);

type Int64Validate = ((data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] };

/**
 * The check of one int64 schema: an integer in the signed 64-bit range, then each constraint,
 * compared exactly. Bounds become the integer bounds they imply (minimum 0.5 is minimum 1), and a
 * fractional multipleOf p/q the integer step it implies; all of it is worked out here, once.
 */
function int64Check(constraints: Int64Constraints): Int64Validate {
  const checks: { broken: (value: bigint) => boolean; params: Int64ErrorParams }[] = [];
  const bound = (keyword: 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum') => {
    const text = constraints[keyword];
    if (text === undefined) return;
    const { p, q } = rational(text);
    const broken =
      keyword === 'minimum'
        ? (
            (limit) => (value: bigint) =>
              value < limit
          )(ceilDivide(p, q))
        : keyword === 'exclusiveMinimum'
          ? (
              (limit) => (value: bigint) =>
                value <= limit
            )(floorDivide(p, q))
          : keyword === 'maximum'
            ? (
                (limit) => (value: bigint) =>
                  value > limit
              )(floorDivide(p, q))
            : (
                (limit) => (value: bigint) =>
                  value >= limit
              )(ceilDivide(p, q));
    checks.push({ broken, params: { constraint: keyword, limit: text } });
  };
  bound('minimum');
  bound('exclusiveMinimum');
  bound('maximum');
  bound('exclusiveMaximum');
  if (constraints.multipleOf !== undefined) {
    const { p, q } = rational(constraints.multipleOf);
    if (p <= 0n) throw new Error(`an int64 schema's multipleOf must be greater than 0, not ${constraints.multipleOf}`);
    // An integer v is a multiple of p/q when v·q/p is an integer: when p/gcd(p, q) divides v.
    const step = p / gcd(p, q);
    checks.push({
      broken: (value) => value % step !== 0n,
      params: { constraint: 'multipleOf', limit: constraints.multipleOf },
    });
  }
  if (constraints.enum !== undefined) {
    const allowed = new Set(constraints.enum.filter((text) => /^-?\d+$/.test(text)).map(BigInt));
    checks.push({
      broken: (value) => !allowed.has(value),
      params: { constraint: 'enum', allowedValues: constraints.enum },
    });
  }
  if (constraints.const !== undefined) {
    const only = /^-?\d+$/.test(constraints.const) ? BigInt(constraints.const) : undefined;
    checks.push({ broken: (value) => value !== only, params: { constraint: 'const', limit: constraints.const } });
  }

  const validate: Int64Validate = (data) => {
    if (!isInt64(data)) {
      validate.errors = [{ keyword: 'int64', params: {}, message: 'must be a signed 64-bit integer' }];
      return false;
    }
    if (checks.length === 0) return true;
    const value = BigInt(data);
    const failed = checks.filter((check) => check.broken(value));
    if (failed.length === 0) return true;
    validate.errors = failed.map(({ params }) => ({
      keyword: 'int64',
      params,
      message: `must satisfy ${params.constraint}`,
    }));
    return false;
  };
  return validate;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
