// Numbers (`type: number`, doubles): the values inside a schema's bounds, and ones just outside
// each. A multipleOf of doubles is not generated: it stops the tests when they are built.
import fc from 'fast-check';
import { binaryString } from './code-points.js';
import type { Schema } from './schema.js';

const FINITE = { noNaN: true, noDefaultInfinity: true } as const;

/** A bound as the double a schema gives it (a bigint, as the document reader keeps large integers). */
const bound = (value: number | bigint | undefined) => (value === undefined ? undefined : Number(value));

/** The lowest and highest value of the schema, and whether each is excluded. */
function rangeOf(schema: Schema) {
  if (schema.multipleOf !== undefined)
    throw new Error(`schema-arbitraries does not generate numbers with multipleOf (${String(schema.multipleOf)})`);
  const [minimum, exclusiveMinimum] = [bound(schema.minimum), bound(schema.exclusiveMinimum)];
  const [maximum, exclusiveMaximum] = [bound(schema.maximum), bound(schema.exclusiveMaximum)];
  // Of two lower bounds the higher holds, an exclusive one when it is not below the other.
  const low =
    exclusiveMinimum !== undefined && (minimum === undefined || exclusiveMinimum >= minimum)
      ? { at: exclusiveMinimum, excluded: true }
      : minimum === undefined
        ? undefined
        : { at: minimum, excluded: false };
  const high =
    exclusiveMaximum !== undefined && (maximum === undefined || exclusiveMaximum <= maximum)
      ? { at: exclusiveMaximum, excluded: true }
      : maximum === undefined
        ? undefined
        : { at: maximum, excluded: false };
  return { low, high };
}

/** Finite doubles the schema allows. */
export function numberIn(schema: Schema): fc.Arbitrary<number> {
  const { low, high } = rangeOf(schema);
  return fc.double({
    ...FINITE,
    ...(low === undefined ? {} : { min: low.at, minExcluded: low.excluded }),
    ...(high === undefined ? {} : { max: high.at, maxExcluded: high.excluded }),
  });
}

/** Finite doubles just outside each bound of the schema, each with the rule it breaks. */
export function brokenNumbers(schema: Schema): [string, fc.Arbitrary<number>][] {
  const { low, high } = rangeOf(schema);
  const ways: [string, fc.Arbitrary<number>][] = [];
  if (low !== undefined)
    ways.push(['below minimum', fc.double({ ...FINITE, max: low.at, maxExcluded: !low.excluded })]);
  if (high !== undefined)
    ways.push(['above maximum', fc.double({ ...FINITE, min: high.at, minExcluded: !high.excluded })]);
  return ways;
}

// Text that is not a decimal number (as JSON writes one, leading zeros allowed), or is one past a
// double's range.
export const notNumber = fc
  .oneof(
    fc.constantFrom(
      '',
      'abc',
      '0x10',
      '1e',
      '.5',
      '1.',
      '+1',
      ' 1',
      '1 ',
      '1,5',
      '١',
      'NaN',
      'Infinity',
      '1e400',
      'true',
    ),
    binaryString({ maxLength: 8 }),
  )
  .filter((text) => !/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text) || !Number.isFinite(Number(text)));
