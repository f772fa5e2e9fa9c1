// The client's exact JSON (both parsers and the writer) and its Link header reader.
import t from 'tap';
import { parseExact, parseLossless, stringifyExact } from '../exact-json.js';
import { linkTargets } from '../link-header.js';

const SAMPLES = [
  '[{"id":1,"name":"Rex","categoryId":9223372036854775807,"status":"available"},{"id":2,"name":"Tom","categoryId":-9223372036854775808}]',
  ' { "a" : [ 1.5 , -0.25e2 , 2E3 , 0 , -7 , true , false , null , "" , {} , [] ] , "b" : "\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9 \\ud83d\\ude00" } ',
  '9007199254740993',
  '"just a string"',
  '[]',
];

t.test('parseLossless reads every integer literal as a bigint, exactly, and the rest as JSON.parse does', async (t) => {
  t.same(parseLossless(SAMPLES[0]!), [
    { id: 1n, name: 'Rex', categoryId: 9223372036854775807n, status: 'available' },
    { id: 2n, name: 'Tom', categoryId: -9223372036854775808n },
  ]);
  t.same(parseLossless(SAMPLES[1]!), {
    a: [1.5, -25, 2000, 0n, -7n, true, false, null, '', {}, []],
    b: JSON.parse(SAMPLES[1]!).b,
  });
  t.equal(parseLossless(SAMPLES[2]!), 9007199254740993n);
  t.equal(parseLossless(SAMPLES[3]!), 'just a string');
  const polluted = parseLossless('{"__proto__":{"admin":true}}') as Record<string, unknown>;
  t.same(Object.keys(polluted), ['__proto__'], '__proto__ is an ordinary key, as JSON.parse makes it');
  t.equal(({} as Record<string, unknown>)['admin'], undefined, 'and no prototype changed');
});

t.test('parseLossless refuses what is not JSON, naming the position', async (t) => {
  const rejections: [string, RegExp][] = [
    ['[1, 2', /expected ',' or '\]' at position 5/],
    ['{"a" 1}', /expected ':' at position 5/],
    ['{"a": 1 "b": 2}', /expected ',' or '}' at position 8/],
    ['{1: 2}', /expected a property name at position 1/],
    ['"open', /unterminated string at position 5/],
    ['[01]', /expected ',' or '\]' at position 2/],
    ['nul', /unexpected character at position 0/],
    ['[1] x', /unexpected text after the JSON value at position 4/],
    ['', /unexpected character at position 0/],
  ];
  for (const [text, message] of rejections)
    t.throws(() => parseLossless(text), { name: 'SyntaxError', message }, JSON.stringify(text));
  t.throws(
    () => parseLossless('["a\u0001"]'),
    { name: 'SyntaxError' },
    'a control character in a string, as JSON.parse refuses it',
  );
});

t.test(
  'parseExact gives what parseLossless gives, also where JSON.parse alone would reorder or drop values',
  async (t) => {
    const tricky = [
      ...SAMPLES,
      '{"b":9007199254740993,"2":9007199254740995,"a":1}',
      '{"a":9007199254740993,"a":9007199254740995}',
      '{"a":1,"a":"x","b":9007199254740993}',
      '{"__proto__":9007199254740993,"x":[1,2.5,-3e2]}',
      '["9007199254740993 in a string", 9007199254740993, "\\\\", 1]',
    ];
    for (const text of tricky) t.same(parseExact(text), parseLossless(text), text);
    t.same(
      parseExact('{"a":1,"a":9007199254740993}'),
      { a: 9007199254740993n },
      'a repeated key keeps its last value, exactly',
    );
    t.throws(() => parseExact('{"a": 1'), { name: 'SyntaxError' }, 'not JSON: refused as JSON.parse refuses it');
  },
);

t.test('stringifyExact writes bigints as bare integers and refuses numbers that lost their value', async (t) => {
  t.equal(
    stringifyExact({ name: 'Rex', categoryId: 9223372036854775807n, status: undefined }),
    '{"name":"Rex","categoryId":9223372036854775807}',
  );
  t.equal(
    stringifyExact([1, -2.5, 'a"b', null, true, undefined, -9223372036854775808n]),
    '[1,-2.5,"a\\"b",null,true,null,-9223372036854775808]',
  );
  t.equal(stringifyExact({ nested: { list: [{ id: 1n }] } }), '{"nested":{"list":[{"id":1}]}}');
  t.equal(stringifyExact(2 ** 53 - 1), '9007199254740991');
  t.equal(stringifyExact(0.1), '0.1');
  t.throws(
    () => stringifyExact(1e300),
    { name: 'RangeError' },
    'any integral number beyond 2^53 is refused: it cannot say which integer it means',
  );
  t.throws(() => stringifyExact({ list: [1, 2 ** 53] }), {
    name: 'RangeError',
    message: /^body\.list\[1\] is 9007199254740992, beyond 2\^53/,
  });
  for (const value of [{ a: 1 }, ['x', 2, false], 'text', 0])
    t.same(JSON.parse(stringifyExact(value)), value, 'plain values as JSON.stringify writes them');
});

t.test('linkTargets reads Link headers as RFC 8288 writes them', async (t) => {
  t.same(linkTargets(null, 'next'), []);
  t.same(linkTargets('</v1/pets?cursor=a>; rel="next"', 'next'), ['/v1/pets?cursor=a']);
  t.same(
    linkTargets('</v1/pets>; rel="successor-version", </v1/pets?cursor=b>; rel=next', 'next'),
    ['/v1/pets?cursor=b'],
    'one of several, rel unquoted',
  );
  t.same(
    linkTargets('<https://x/a>; title="a; b, c"; rel="prev NEXT"', 'next'),
    ['https://x/a'],
    'several relation types, any case, a quoted parameter with separators',
  );
  t.same(linkTargets('<a>; rel="previous", <b>; anchor="x"', 'next'), [], 'none');
  t.same(linkTargets('<a>; rel', 'next'), [], 'a rel without a value');
});
