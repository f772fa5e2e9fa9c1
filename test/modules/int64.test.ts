import t from 'tap';
import { isInt64, parseJsonNumber } from '../../src/validation/int64.js';
import { parseJson } from '../../src/validation/strict-json.js';

t.test('JSON number literals are read without loss', async (t) => {
  const cases: [string, number | bigint][] = [
    ['0', 0],
    ['-0', 0],
    ['42', 42],
    ['9007199254740991', 9007199254740991],
    ['9007199254740992', 9007199254740992n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['1e3', 1000],
    ['1.50e1', 15],
    ['0.0e5', 0],
    ['9.223372036854775807e18', 9223372036854775807n],
    ['1.5', 1.5],
    ['-2.25e-1', -0.225],
  ];
  for (const [literal, value] of cases) t.equal(parseJsonNumber(literal), value, literal);
  t.ok(
    Number.isNaN(parseJsonNumber('1.0000000000000001')),
    'a fraction that rounds to an integer is never that integer',
  );
  t.ok(Number.isNaN(parseJsonNumber('1e-400')), 'nor is one that underflows to 0');
  t.equal(parseJsonNumber('1e400'), Infinity, 'far out of range stays out of range');
  t.ok(Number.isNaN(parseJsonNumber('NaN')), 'anything else is not a number');
});

t.test('int64 range', async (t) => {
  t.ok(isInt64(2n ** 63n - 1n));
  t.ok(isInt64(-(2n ** 63n)));
  t.notOk(isInt64(2n ** 63n));
  t.notOk(isInt64(-(2n ** 63n) - 1n));
  t.ok(isInt64(Number.MAX_SAFE_INTEGER));
  t.notOk(isInt64(2 ** 53), 'a double past 2^53 may already have lost digits');
  t.notOk(isInt64(1.5));
  t.notOk(isInt64('1'));
});

t.test('parseJson keeps big integers and refuses duplicate keys', async (t) => {
  t.same(parseJson('{"a":12345678901234567890}'), { a: 12345678901234567890n });
  t.throws(() => parseJson('{"a":1,"a":2}'), /Duplicate key/);
});
