// fast-check arbitraries derived from the JSON schemas of an OpenAPI document: values that satisfy a
// schema, and values that break exactly one of its constraints, each labelled with the part of
// the value it breaks. A keyword this module does not know stops the tests, so that a spec
// change can never quietly shrink what is generated.
import fc from 'fast-check';
import { stringify } from 'lossless-json';
import { codePoint } from './code-points.js';
import { INT64_MAX, INT64_MIN } from '../validation/int64.js';
import { resolveRef, type OpenApiDocument } from '../openapi/openapi-spec.js';

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  exclusiveMinimum?: number | bigint;
  exclusiveMaximum?: number | bigint;
  multipleOf?: number | bigint;
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean;
  items?: Schema;
}

/** A value that breaks one constraint, with the path (from the schema's root) of what it breaks. */
export interface Breaking {
  value: unknown;
  /** Property names from the root to the broken part; [] is the value itself. */
  path: string[];
  /** What was broken, for reading counter-examples. */
  rule: string;
  /** Set when the break is an unknown property: its name. */
  unknownField?: string;
  /** Set when the break is a missing required property: its name. */
  missingField?: string;
}

const KNOWN = new Set([
  '$ref',
  'type',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'const',
  'minLength',
  'maxLength',
  'enum',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'description',
  'default',
  'example',
  'examples',
  // Known so that a schema with it resolves; strings with a pattern are not generated (see stringOf).
  'pattern',
]);

/** Follows a schema's `$ref`s within `document`, and refuses keywords this module does not generate for. */
export function resolverOf(document: OpenApiDocument) {
  return function resolve(schema: Schema): Schema {
    const resolved = resolveRef(document, schema);
    const unknown = Object.keys(resolved).filter((keyword) => !KNOWN.has(keyword));
    if (unknown.length > 0) throw new Error(`schema-arbitraries does not know the keyword(s) ${unknown.join(', ')}`);
    return resolved;
  };
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A bound as the integer it implies: `minimum: 0.5` is 1, `exclusiveMaximum: 3` is 2. */
const ceilOf = (value: number | bigint) => (typeof value === 'bigint' ? value : BigInt(Math.ceil(value)));
const floorOf = (value: number | bigint) => (typeof value === 'bigint' ? value : BigInt(Math.floor(value)));

/** The integers an integer schema allows: from min to max (inclusive), multiples of step, perhaps only some values. */
interface IntegerDomain {
  min: bigint;
  max: bigint;
  step: bigint;
  /** Set by enum or const: the only values allowed (those in range and multiples of step). */
  only?: bigint[];
}

function integerDomain(schema: Schema): IntegerDomain {
  const [formatMin, formatMax] =
    schema.format === 'int32' ? [BigInt(INT32_MIN), BigInt(INT32_MAX)] : [INT64_MIN, INT64_MAX];
  if (schema.format !== 'int32' && schema.format !== 'int64')
    throw new Error(`integer format ${schema.format} is not generated`);
  const lows = [formatMin];
  const highs = [formatMax];
  if (schema.minimum !== undefined) lows.push(ceilOf(schema.minimum));
  if (schema.exclusiveMinimum !== undefined) lows.push(floorOf(schema.exclusiveMinimum) + 1n);
  if (schema.maximum !== undefined) highs.push(floorOf(schema.maximum));
  if (schema.exclusiveMaximum !== undefined) highs.push(ceilOf(schema.exclusiveMaximum) - 1n);
  const min = lows.reduce((a, b) => (a > b ? a : b));
  const max = highs.reduce((a, b) => (a < b ? a : b));
  const step = schema.multipleOf === undefined ? 1n : integerStepOf(schema.multipleOf);
  const listed = schema.const !== undefined ? [schema.const] : schema.enum;
  const only = listed
    ?.filter(
      (value): value is number | bigint =>
        (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint',
    )
    .map(BigInt)
    .filter((value) => value >= min && value <= max && value % step === 0n);
  if ((only !== undefined && only.length === 0) || ceilDiv(min, step) > floorDiv(max, step)) {
    throw new Error(
      `schema-arbitraries: the integer schema ${JSON.stringify(schema, (_key, value) => (typeof value === 'bigint' ? String(value) : value))} allows no value`,
    );
  }
  return { min, max, step, ...(only === undefined ? {} : { only }) };
}

/** Integers are multiples of p/q exactly when they are multiples of p / gcd(p, q) (q from the decimal text). */
function integerStepOf(multipleOf: number | bigint): bigint {
  if (typeof multipleOf === 'bigint' || Number.isInteger(multipleOf)) return BigInt(multipleOf);
  const [whole, fraction = ''] = String(multipleOf).split('.');
  if (/e/i.test(String(multipleOf))) throw new Error(`schema-arbitraries: multipleOf ${multipleOf} is not generated`);
  const p = BigInt(whole! + fraction);
  const q = 10n ** BigInt(fraction.length);
  let [a, b] = [p, q];
  while (b !== 0n) [a, b] = [b, a % b];
  return p / a;
}

const floorDiv = (p: bigint, q: bigint) => (p >= 0n ? p / q : -((-p + q - 1n) / q));
const ceilDiv = (p: bigint, q: bigint) => -floorDiv(-p, q);

/**
 * Integers outside a domain, one way each: below its least value, above its greatest (outside the
 * format's range too), in range but not a multiple of its step, in range but not one of its values.
 */
function integerBreakings(domain: IntegerDomain): [string, fc.Arbitrary<bigint>][] {
  const { min, max, step, only } = domain;
  const breakings: [string, fc.Arbitrary<bigint>][] = [
    ['below minimum', integerIn(min - 2n ** 66n, min - 1n)],
    ['above maximum', integerIn(max + 1n, max + 2n ** 66n)],
  ];
  if (step > 1n && max - min >= step) {
    breakings.push([
      `not a multiple of ${step}`,
      fc
        .tuple(inDomain({ min, max, step }), fc.bigInt({ min: 1n, max: step - 1n }))
        .map(([multiple, offset]) => (multiple + offset <= max ? multiple + offset : multiple - offset))
        .filter((value) => value >= min),
    ]);
  }
  if (only !== undefined) {
    const allowed = new Set(only);
    const near = only.flatMap((value) => [value - step, value + step, value - 1n, value + 1n]);
    const others = fc
      .oneof(fc.constantFrom(...near), integerIn(min, max))
      .filter((value) => value >= min && value <= max && !allowed.has(value));
    // Only when the range holds a value that is not allowed.
    if (max - min + 1n > BigInt(allowed.size)) breakings.push(['not one of the allowed values', others]);
  }
  return breakings;
}

/** The values of a domain: at its bounds, around 2^53, anywhere. */
function inDomain({ min, max, step, only }: IntegerDomain): fc.Arbitrary<bigint> {
  if (only !== undefined) return fc.constantFrom(...only);
  return integerIn(ceilDiv(min, step), floorDiv(max, step)).map((k) => k * step);
}

/** Integers are generated as bigint so that int64 keeps every digit; see `toJson`. */
function integerIn(min: bigint, max: bigint): fc.Arbitrary<bigint> {
  return fc.oneof(
    fc.bigInt({ min, max }),
    fc.constantFrom(
      min,
      max,
      ...[0n, 1n, -1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n].filter((n) => n >= min && n <= max),
    ),
  );
}

// Any code point, and now and then a lone surrogate, which JSON can carry as an escape.
const anyCharacter = fc.oneof(
  { weight: 9, arbitrary: codePoint },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
);

/** Strings of min to max code points; adjacent lone surrogates would pair up, so the count is checked. */
function stringOfLength(min: number, max: number, allowed?: RegExp): fc.Arbitrary<string> {
  const character = allowed === undefined ? anyCharacter : anyCharacter.filter((candidate) => allowed.test(candidate));
  return fc
    .oneof(
      fc.array(character, { minLength: min, maxLength: max }),
      fc.constantFrom(min, max).chain((length) => fc.array(character, { minLength: length, maxLength: length })),
    )
    .map((characters) => characters.join(''))
    .filter((text) => [...text].length >= min && [...text].length <= max);
}

// A character class repeated, `^[...]*$`, as PetName's, is generated character by character (and
// broken by one excluded character); any other pattern (an id's shape) is drawn from the pattern.
const CLASS_REPEATED = /^\^(\[[^\]]*\])\*\$$/;
// Characters a class may exclude, tried when a value must break it.
const EXCLUDABLE = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\u0001', '\u007f', 'a', ' '];

/** For a pattern `^[...]*$`, the test one character must pass. */
function characterClassOf(schema: Schema): RegExp | undefined {
  if (schema.pattern === undefined || shapedPattern(schema) !== undefined) return undefined;
  const match = CLASS_REPEATED.exec(schema.pattern);
  if (match === null) throw new Error(`schema-arbitraries does not generate strings for the pattern ${schema.pattern}`);
  return new RegExp(`^${match[1]}$`, 'u');
}

/** A pattern other than a repeated class (an id's shape): its strings are drawn from the pattern itself. */
function shapedPattern(schema: Schema): RegExp | undefined {
  return schema.pattern === undefined || CLASS_REPEATED.test(schema.pattern)
    ? undefined
    : new RegExp(schema.pattern, 'u');
}

// fast-check's stringMatching takes milliseconds to build (it tokenizes its dangerous strings against
// the pattern's characters), once per document and operation otherwise: one per pattern serves all,
// arbitraries being immutable.
const matchingArbitraries = new Map<string, fc.Arbitrary<string>>();
/** Strings that match `pattern`, as fc.stringMatching draws them. */
export function matching(pattern: RegExp): fc.Arbitrary<string> {
  const key = `${pattern.flags}/${pattern.source}`;
  let arbitrary = matchingArbitraries.get(key);
  if (arbitrary === undefined) matchingArbitraries.set(key, (arbitrary = fc.stringMatching(pattern)));
  return arbitrary;
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 200;
  const shape = shapedPattern(schema);
  if (shape !== undefined) return matching(shape).filter((text) => [...text].length >= min && [...text].length <= max);
  return stringOfLength(min, max, characterClassOf(schema));
}

/** A valid string with one character its class excludes put between two of its code points. */
function withExcludedCharacter(schema: Schema, allowed: RegExp): fc.Arbitrary<string> {
  const excluded = EXCLUDABLE.filter((candidate) => !allowed.test(candidate));
  const min = Math.max(0, (schema.minLength ?? 0) - 1);
  const max = (schema.maxLength ?? 200) - 1;
  return fc
    .tuple(stringOfLength(min, max, allowed), fc.nat(), fc.constantFrom(...excluded))
    .map(([text, at, character]) => {
      const points = [...text];
      points.splice(at % (points.length + 1), 0, character);
      return points.join('');
    });
}

/** The JSON type of a value, as a schema's `type` names it. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) return 'integer';
  return typeof value;
}

/**
 * JSON values of none of `types` (integers also exclude integral numbers): a schema's `type`, or,
 * without one, the types of its `enum` values (`[available, sold, null]`: strings and null).
 */
function otherJsonType(types: readonly string[]): fc.Arbitrary<unknown> {
  const candidates: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 5 }),
    integer: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
    boolean: fc.boolean(),
    null: fc.constant(null),
    array: fc.array(fc.integer(), { maxLength: 2 }),
    object: fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  };
  return fc.oneof(
    ...Object.entries(candidates)
      .filter(([name]) => !types.includes(name))
      .map(([, arbitrary]) => arbitrary),
  );
}

/** The arbitraries of one document's schemas: values that satisfy a schema, and values that break it once. */
export function schemaArbitraries(document: OpenApiDocument) {
  const resolve = resolverOf(document);

  /** Values that satisfy the schema. */
  function validValue(schema: Schema): fc.Arbitrary<unknown> {
    const resolved = resolve(schema);
    if (resolved.type === 'integer') return inDomain(integerDomain(resolved));
    if (resolved.enum !== undefined) return fc.constantFrom(...resolved.enum);
    switch (resolved.type) {
      case 'string':
        return stringOf(resolved);
      case 'object': {
        const properties = resolved.properties ?? {};
        const model = Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, validValue(child)]));
        return fc.record(model, { requiredKeys: resolved.required ?? [] });
      }
      default:
        throw new Error(`schema-arbitraries cannot generate type ${String(resolved.type)}`);
    }
  }

  /** Values that break exactly one constraint of the schema. */
  function brokenValue(schema: Schema): fc.Arbitrary<Breaking> {
    const resolved = resolve(schema);
    const at = (rule: string, arbitrary: fc.Arbitrary<unknown>) =>
      arbitrary.map((value): Breaking => ({ value, path: [], rule }));
    const types = resolved.type !== undefined ? [resolved.type] : [...new Set((resolved.enum ?? []).map(jsonTypeOf))];
    const breakings: fc.Arbitrary<Breaking>[] = [at('wrong JSON type', otherJsonType(types))];

    if (resolved.type === 'integer') {
      breakings.push(...integerBreakings(integerDomain(resolved)).map(([rule, arbitrary]) => at(rule, arbitrary)));
    } else if (resolved.enum !== undefined) {
      const allowed = resolved.enum;
      breakings.push(
        at(
          'not in enum',
          fc.string({ maxLength: 12 }).filter((value) => !allowed.includes(value)),
        ),
      );
    } else if (resolved.type === 'string') {
      const shape = shapedPattern(resolved);
      if (shape !== undefined)
        breakings.push(
          at(
            'outside the pattern',
            fc.string({ maxLength: 30 }).filter((text) => !shape.test(text)),
          ),
        );
      const allowed = characterClassOf(resolved);
      if (allowed !== undefined)
        breakings.push(at('a character the pattern excludes', withExcludedCharacter(resolved, allowed)));
      if ((resolved.minLength ?? 0) > 0)
        breakings.push(at('too short', stringOfLength(0, resolved.minLength! - 1, allowed)));
      if (resolved.maxLength !== undefined)
        breakings.push(at('too long', stringOfLength(resolved.maxLength + 1, resolved.maxLength + 20, allowed)));
    } else if (resolved.type === 'object') {
      breakings.push(...objectBreakings(resolved));
    }
    return fc.oneof(...breakings);
  }

  function objectBreakings(schema: Schema): fc.Arbitrary<Breaking>[] {
    const properties = schema.properties ?? {};
    const valid = validValue(schema) as fc.Arbitrary<Record<string, unknown>>;
    const breakings: fc.Arbitrary<Breaking>[] = [];
    for (const name of schema.required ?? []) {
      breakings.push(
        valid.map((object) => {
          const { [name]: _dropped, ...rest } = object;
          return { value: rest, path: [], rule: `missing required ${name}`, missingField: name };
        }),
      );
    }
    if (schema.additionalProperties === false) {
      const unknownName = fc
        .oneof(
          fc.string({ minLength: 1, maxLength: 10 }),
          fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'id'),
        )
        .filter((name) => !Object.hasOwn(properties, name));
      breakings.push(
        fc.tuple(valid, unknownName, fc.jsonValue({ maxDepth: 1 })).map(([object, name, extra]) => ({
          value: Object.defineProperty({ ...object }, name, {
            value: extra,
            enumerable: true,
            writable: true,
            configurable: true,
          }),
          path: [],
          rule: `unknown field ${name}`,
          unknownField: name,
        })),
      );
    }
    for (const [name, child] of Object.entries(properties)) {
      breakings.push(
        fc.tuple(valid, brokenValue(child)).map(([object, broken]) => ({
          ...broken,
          value: { ...object, [name]: broken.value },
          path: [name, ...broken.path],
        })),
      );
    }
    return breakings;
  }

  return { resolve, validValue, brokenValue };
}

/** openapi.yaml's. */

/** The same object as other JSON text: members in reverse order, with more spacing. */
export function respelt(body: Record<string, unknown>): string {
  return `{ ${Object.entries(body)
    .reverse()
    .map(([name, value]) => `${JSON.stringify(name)} :  ${toJson(value)}`)
    .join(' ,\n ')} }`;
}

/** JSON text for a generated value; bigints are written as plain JSON integers. */
export function toJson(value: unknown): string {
  return stringify(value) as string;
}
