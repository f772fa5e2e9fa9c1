import t from 'tap';
import { encodeCursor, positionOf } from '../../src/pagination/cursor.js';
import { nextPageLink } from '../../src/pagination/next-link.js';
import { INT64_MAX } from '../../src/validation/int64.js';

const text = (cursor: string) => Buffer.from(cursor, 'base64url').toString('latin1');
const cursorOf = (decoded: string) => Buffer.from(decoded, 'latin1').toString('base64url');

t.test('a cursor gives back the position it was made for, with the same filter', async (t) => {
  for (const after of [1, 42, 2 ** 53 - 1, 2n ** 53n + 1n, INT64_MAX]) {
    for (const status of [undefined, 'available', 'pending', 'sold'] as const) {
      const cursor = encodeCursor({ after, status });
      t.match(cursor, /^[A-Za-z0-9_-]+$/, 'base64url without padding');
      t.ok(cursor.length <= 64, 'within the spec maxLength');
      t.equal(positionOf(cursor, status), after, `${after}, ${status ?? 'no status'}`);
    }
  }
});

t.test('a cursor sent with another filter than it was made for is refused, naming the cursor', async (t) => {
  const sold = encodeCursor({ after: 5, status: 'sold' });
  t.throws(() => positionOf(sold, 'available'), {
    code: 'VALIDATION_FAILED',
    message: /query parameter cursor belongs to the list with status=sold, not to this request/,
  });
  t.throws(() => positionOf(sold, undefined), {
    code: 'VALIDATION_FAILED',
    message: /query parameter cursor belongs to the list with status=sold/,
  });
  const all = encodeCursor({ after: 5, status: undefined });
  t.throws(() => positionOf(all, 'sold'), {
    message: /query parameter cursor belongs to a list without a status filter/,
  });
});

t.test('text the service did not issue is refused as a cursor', async (t) => {
  const issued = encodeCursor({ after: 5, status: 'sold' });
  t.equal(text(issued), 'v1:sold:5', 'what a cursor holds today');
  const forged = [
    'v1:sold:05',
    'v1:sold:0',
    'v1:sold:-5',
    'v1:sold:5.0',
    'v1:sold:',
    'v1:sold:5:',
    'v2:sold:5',
    'v1:Sold:5',
    'v1:sold:9223372036854775808',
    'v1:sold:99999999999999999999',
    ' v1:sold:5',
    'v1 sold 5',
  ];
  for (const decoded of forged)
    t.throws(
      () => positionOf(cursorOf(decoded), 'sold'),
      {
        code: 'VALIDATION_FAILED',
        message:
          /^query parameter cursor is not a cursor this service issued; send the cursor of a Link rel="next" header unchanged/,
      },
      decoded,
    );
  // Base64url decoding ignores what it cannot read and stray bits: only the canonical text is a cursor.
  for (const altered of [
    `${issued}=`,
    `${issued}A`,
    `${issued.slice(0, -1)}${issued.endsWith('U') ? 'V' : 'U'}`,
    `!${issued}`,
    '',
  ]) {
    t.throws(() => positionOf(altered, 'sold'), { code: 'VALIDATION_FAILED' }, altered);
  }
  t.equal(positionOf(cursorOf('v1:sold:9223372036854775807'), 'sold'), INT64_MAX, 'the largest int64 is a position');
});

t.test('the next link carries limit, status and the cursor after the last id', async (t) => {
  t.equal(
    nextPageLink('/v1/pets', { limit: 20, status: undefined, lastId: 20 }),
    `</v1/pets?limit=20&cursor=${encodeCursor({ after: 20, status: undefined })}>; rel="next"`,
  );
  t.equal(
    nextPageLink('/v1/pets', { limit: 3, status: 'sold', lastId: 42 }),
    '</v1/pets?limit=3&status=sold&cursor=djE6c29sZDo0Mg>; rel="next"',
  );
});
