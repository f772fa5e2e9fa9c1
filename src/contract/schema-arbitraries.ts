// fast-check arbitraries derived from the JSON schemas of an OpenAPI document: values that satisfy a
// schema, and values that break exactly one of its constraints, each labelled with the part of
// the value it breaks. A keyword this module does not know stops the tests, so that a spec
// change can never quietly shrink what is generated.
import fc from 'fast-check';
import { stringify } from 'lossless-json';
import { codePoint } from './code-points.js';
import { inDomain, brokenIntegers, integerDomain } from './integer-arbitraries.js';
import { resolveRef, type OpenApiDocument } from './openapi-document.js';
import { brokenNumbers, numberIn } from './number-arbitraries.js';
import { formatted, notFormatted } from './string-formats.js';
import type { BrokenValue, Schema } from './schema.js';

export type { BrokenValue, Schema } from './schema.js';

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
  'minItems',
  'maxItems',
  'uniqueItems',
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
  if (schema.format !== undefined)
    return formatted(schema.format).filter((text) => [...text].length >= min && [...text].length <= max);
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
      // A number may be integral or not: neither is of another type.
      .filter(([name]) => !types.includes(name) && !(name === 'integer' && types.includes('number')))
      .map(([, arbitrary]) => arbitrary),
  );
}

/** The schema of a nullable value without its null (`type: [string, 'null']`: a string), or undefined. */
function nonNull(schema: Schema): Schema | undefined {
  if (!Array.isArray(schema.type)) return undefined;
  const others = schema.type.filter((type) => type !== 'null');
  if (others.length !== 1 || others.length === schema.type.length)
    throw new Error(`schema-arbitraries generates one type, or one type and null, not ${schema.type.join(', ')}`);
  return { ...schema, type: others[0]! };
}

/** The arbitraries of one document's schemas: values that satisfy a schema, and values that break it once. */
export function schemaArbitraries(document: OpenApiDocument) {
  const resolve = resolverOf(document);

  /** Values that satisfy the schema. */
  function validValue(schema: Schema): fc.Arbitrary<unknown> {
    const resolved = resolve(schema);
    const present = nonNull(resolved);
    if (present !== undefined) return fc.oneof(fc.constant(null), validValue(present));
    if (resolved.type === 'integer') return inDomain(integerDomain(resolved));
    if (resolved.enum !== undefined) return fc.constantFrom(...resolved.enum);
    switch (resolved.type) {
      case 'string':
        return stringOf(resolved);
      case 'boolean':
        return fc.boolean();
      case 'number':
        return numberIn(resolved);
      case 'array':
        return validArray(resolved, validValue);
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
  function brokenValue(schema: Schema): fc.Arbitrary<BrokenValue> {
    const resolved = resolve(schema);
    // A nullable value is broken as its type is, but never by a null.
    const present = nonNull(resolved);
    if (present !== undefined) return brokenValue(present).filter(({ value }) => value !== null);
    const at = (rule: string, arbitrary: fc.Arbitrary<unknown>) =>
      arbitrary.map((value): BrokenValue => ({ value, path: [], rule }));
    const types =
      resolved.type !== undefined ? [resolved.type as string] : [...new Set((resolved.enum ?? []).map(jsonTypeOf))];
    const ways: fc.Arbitrary<BrokenValue>[] = [at('wrong JSON type', otherJsonType(types))];

    if (resolved.type === 'integer') {
      ways.push(...brokenIntegers(integerDomain(resolved)).map(([rule, arbitrary]) => at(rule, arbitrary)));
    } else if (resolved.enum !== undefined) {
      const allowed = resolved.enum;
      ways.push(
        at(
          'not in enum',
          fc.string({ maxLength: 12 }).filter((value) => !allowed.includes(value)),
        ),
      );
    } else if (resolved.type === 'string') {
      // A string of a format is broken by its format alone: text too short or too long for it
      // would break the format too, not one constraint.
      if (resolved.format !== undefined)
        return fc.oneof(...ways, at(`not a ${resolved.format}`, notFormatted(resolved.format)));
      const shape = shapedPattern(resolved);
      if (shape !== undefined)
        ways.push(
          at(
            'outside the pattern',
            fc.string({ maxLength: 30 }).filter((text) => !shape.test(text)),
          ),
        );
      const allowed = characterClassOf(resolved);
      if (allowed !== undefined)
        ways.push(at('a character the pattern excludes', withExcludedCharacter(resolved, allowed)));
      if ((resolved.minLength ?? 0) > 0)
        ways.push(at('too short', stringOfLength(0, resolved.minLength! - 1, allowed)));
      if (resolved.maxLength !== undefined)
        ways.push(at('too long', stringOfLength(resolved.maxLength + 1, resolved.maxLength + 20, allowed)));
    } else if (resolved.type === 'number') {
      ways.push(...brokenNumbers(resolved).map(([rule, arbitrary]) => at(rule, arbitrary)));
    } else if (resolved.type === 'object') {
      ways.push(...brokenObjects(resolved));
    } else if (resolved.type === 'array') {
      ways.push(...brokenArrays(resolved, validValue, brokenValue));
    }
    return fc.oneof(...ways);
  }

  function brokenObjects(schema: Schema): fc.Arbitrary<BrokenValue>[] {
    const properties = schema.properties ?? {};
    const valid = validValue(schema) as fc.Arbitrary<Record<string, unknown>>;
    const ways: fc.Arbitrary<BrokenValue>[] = [];
    for (const name of schema.required ?? []) {
      ways.push(
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
      ways.push(
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
      ways.push(
        fc.tuple(valid, brokenValue(child)).map(([object, broken]) => ({
          ...broken,
          value: { ...object, [name]: broken.value },
          path: [name, ...broken.path],
        })),
      );
    }
    return ways;
  }

  return { resolve, validValue, brokenValue };
}

/** Arrays of valid items, as many as the schema allows (5 at most unless it asks for more), distinct if it says. */
function validArray(schema: Schema, validValue: (schema: Schema) => fc.Arbitrary<unknown>): fc.Arbitrary<unknown[]> {
  if (schema.items === undefined) throw new Error('schema-arbitraries cannot generate type array');
  const item = validValue(schema.items);
  const constraints = {
    minLength: schema.minItems ?? 0,
    maxLength: schema.maxItems ?? Math.max(5, schema.minItems ?? 0),
  };
  return schema.uniqueItems === true
    ? fc.uniqueArray(item, { ...constraints, selector: (value) => toJson(value) })
    : fc.array(item, constraints);
}

/** Arrays that break one constraint: an item broken, too few or too many items, an item twice. */
function brokenArrays(
  schema: Schema,
  validValue: (schema: Schema) => fc.Arbitrary<unknown>,
  brokenValue: (schema: Schema) => fc.Arbitrary<BrokenValue>,
): fc.Arbitrary<BrokenValue>[] {
  const item = validValue(schema.items!);
  const valid = validArray(schema, validValue);
  const ways: fc.Arbitrary<BrokenValue>[] = [
    fc.tuple(valid, fc.nat(), brokenValue(schema.items!)).map(([array, at, broken]) => {
      const index = array.length === 0 ? 0 : at % array.length;
      const value = [...array];
      value[index] = broken.value;
      return { ...broken, value, path: [String(index), ...broken.path] };
    }),
  ];
  if ((schema.minItems ?? 0) > 0)
    ways.push(
      fc.array(item, { maxLength: schema.minItems! - 1 }).map((value) => ({ value, path: [], rule: 'too few items' })),
    );
  if (schema.maxItems !== undefined)
    ways.push(
      fc
        .array(item, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 3 })
        .map((value) => ({ value, path: [], rule: 'too many items' })),
    );
  if (schema.uniqueItems === true)
    ways.push(
      valid
        .filter((array) => array.length > 0 && array.length < (schema.maxItems ?? Infinity))
        .map((array) => ({ value: [...array, array[0]], path: [], rule: 'an item twice' })),
    );
  return ways;
}

/** openapi.yaml's. */

/** The same object as other JSON text: members in reverse order, with more spacing. */
export function reformattedJson(body: Record<string, unknown>): string {
  return `{ ${Object.entries(body)
    .reverse()
    .map(([name, value]) => `${JSON.stringify(name)} :  ${toJson(value)}`)
    .join(' ,\n ')} }`;
}

/** JSON text for a generated value; bigints are written as plain JSON integers. */
export function toJson(value: unknown): string {
  return stringify(value) as string;
}
