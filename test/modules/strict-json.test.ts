import t from 'tap';
import { parseJson } from '../../src/validation/strict-json.js';

t.test('every repeated key is refused, equal values and escaped spellings included', async (t) => {
  t.throws(() => parseJson('{"a":1,"a":2}'), /Duplicate key 'a'/);
  t.throws(() => parseJson('{"a":1,"a":1}'), /Duplicate key 'a'/, 'an equal repeat is still a repeat');
  t.throws(() => parseJson('{"a":1,"\\u0061":1}'), /Duplicate key 'a'/, '"\\u0061" is "a"');
  t.throws(() => parseJson('[{"b":{"c":1,"c":1}}]'), /Duplicate key 'c'/, 'nested objects are checked');
  t.throws(() => parseJson('{"x":[1,{"y":2}],"x":3}'), /Duplicate key 'x'/, 'keys after an array are checked');
  const many = Array.from({ length: 12 }, (_, index) => `"k${index}":${index}`);
  t.equal(Object.keys(parseJson(`{${many.join(',')}}`) as object).length, 12, 'many distinct keys are fine');
  for (const repeated of [0, 7, 8, 11]) {
    t.throws(
      () => parseJson(`{${many.join(',')},"k${repeated}":0}`),
      new RegExp(`Duplicate key 'k${repeated}'`),
      `a repeat among 13 keys (k${repeated})`,
    );
  }
});

t.test('the same key in different objects, and key-like strings in values, are fine', async (t) => {
  t.same(parseJson('[{"a":1},{"a":2}]'), [{ a: 1 }, { a: 2 }]);
  t.same(parseJson('{"a":{"a":1},"b":["a","a"],"c":"a"}'), { a: { a: 1 }, b: ['a', 'a'], c: 'a' });
  t.same(
    parseJson('{"a\\"b":1,"a":{},"q":"}{,\\\\"}'),
    { 'a"b': 1, a: {}, q: '}{,\\' },
    'escapes and brackets inside strings',
  );
  t.same(parseJson(' { "a" : 1 , "b" : 2 } '), { a: 1, b: 2 }, 'whitespace');
});

t.test('numbers keep their exact value', async (t) => {
  t.same(parseJson('{"n":123456789012345}'), { n: 123456789012345 }, '15 digits: a plain number');
  t.same(parseJson('{"n":1234567890123456789}'), { n: 1234567890123456789n }, 'more digits: a bigint');
  t.same(parseJson('[-9223372036854775808]'), [-(2n ** 63n)]);
  t.same(parseJson('[15.0, 1.5e1, 2.5]'), [15, 15, 2.5], 'integral fractions and exponents are integers');
  t.ok(
    Number.isNaN((parseJson('[1.0000000000000001]') as number[])[0]),
    'a fraction a double would round to an integer is never that integer',
  );
  t.same(parseJson('"text"'), 'text');
});

t.test('text that is not JSON is a SyntaxError', async (t) => {
  for (const text of ['', '{', '{"a":1,}', '[1', 'nul', '{"a" 1}', '01'])
    t.throws(() => parseJson(text), SyntaxError, JSON.stringify(text));
});
