// Strings of any code points, drawn as fast-check's `string({ unit: 'binary' })` draws them: the same
// index over the same two ranges (everything but the surrogates), so a seed gives the same values.
// That unit, the first time a process uses it, maps all 1.1 million code points back to their
// indexes to vet fast-check's built-in tricky strings: 0.7 s of CPU in each process that loaded the
// contract engine (every contract test file, npm run contract, npm run compat). This unit maps back
// by arithmetic.
import fc from 'fast-check';

const SURROGATES = 0xe000 - 0xd800;

/** One code point, never a lone surrogate. */
export const codePoint: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (index) => String.fromCodePoint(index < 0xd800 ? index : index + SURROGATES),
  (value) => {
    const point = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (point === undefined || String.fromCodePoint(point) !== value || (point >= 0xd800 && point < 0xe000))
      throw new Error('not one code point');
    return point < 0xd800 ? point : point - SURROGATES;
  },
);

/** `fc.string({ unit: 'binary', ...constraints })`, without its start-up cost. */
export function binaryString(constraints: Omit<fc.StringConstraints, 'unit'> = {}): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: codePoint });
}
