// The engine's code point arbitrary: what fast-check hands back to shrink maps back to a drawn value.
import fc from 'fast-check';
import t from 'tap';
import { codePoint } from '../code-points.js';

t.test('a code point fast-check did not draw shrinks when it is one code point, and only then', async (t) => {
  for (const value of ['a', '\u{d7ff}', '\u{e000}', '😀', '\u{10ffff}'])
    t.ok(codePoint.canShrinkWithoutContext(value), JSON.stringify(value));
  for (const value of ['', 'ab', '\u{d800}', '\u{dfff}', 7, undefined])
    t.notOk(codePoint.canShrinkWithoutContext(value), JSON.stringify(value));
  // The index it maps back to is the one that draws the value again.
  fc.assert(
    fc.property(codePoint, (value) => codePoint.canShrinkWithoutContext(value)),
    { seed: 1, numRuns: 200 },
  );
  t.pass('every drawn value maps back');
});
