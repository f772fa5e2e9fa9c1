// Integers as the engine generates them from a schema: the domain its keywords allow (bounds,
// multipleOf, enum, int32 and int64), values inside it, and values that break it in one place.
// Generated as bigint, so that an int64 keeps every digit.
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from './exact-json.js';
import type { Schema } from './schema.js';

export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

/** A bound as the integer it implies: `minimum: 0.5` is 1, `exclusiveMaximum: 3` is 2. */
const ceilOf = (value: number | bigint) => (typeof value === 'bigint' ? value : BigInt(Math.ceil(value)));
const floorOf = (value: number | bigint) => (typeof value === 'bigint' ? value : BigInt(Math.floor(value)));

/** The integers an integer schema allows: from min to max (inclusive), multiples of step, perhaps only some values. */
export interface IntegerDomain {
  min: bigint;
  max: bigint;
  step: bigint;
  /** Set by enum or const: the only values allowed (those in range and multiples of step). */
  only?: bigint[];
}

export function integerDomain(schema: Schema): IntegerDomain {
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
export function integerStepOf(multipleOf: number | bigint): bigint {
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
export function brokenIntegers(domain: IntegerDomain): [string, fc.Arbitrary<bigint>][] {
  const { min, max, step, only } = domain;
  const ways: [string, fc.Arbitrary<bigint>][] = [
    ['below minimum', integerIn(min - 2n ** 66n, min - 1n)],
    ['above maximum', integerIn(max + 1n, max + 2n ** 66n)],
  ];
  if (step > 1n && max - min >= step) {
    ways.push([
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
    if (max - min + 1n > BigInt(allowed.size)) ways.push(['not one of the allowed values', others]);
  }
  return ways;
}

/** The values of a domain: at its bounds, around 2^53, anywhere. */
export function inDomain({ min, max, step, only }: IntegerDomain): fc.Arbitrary<bigint> {
  if (only !== undefined) return fc.constantFrom(...only);
  return integerIn(ceilDiv(min, step), floorDiv(max, step)).map((k) => k * step);
}

/** Integers are generated as bigint so that int64 keeps every digit; see `toJson`. */
export function integerIn(min: bigint, max: bigint): fc.Arbitrary<bigint> {
  return fc.oneof(
    fc.bigInt({ min, max }),
    fc.constantFrom(
      min,
      max,
      ...[0n, 1n, -1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n].filter((n) => n >= min && n <= max),
    ),
  );
}
