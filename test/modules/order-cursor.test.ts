// listOrders' cursors (src/pagination/cursor.ts): what they hold, and the cursors refused.
import t from 'tap';
import { encodeCursor, orderPositionOf, positionOf } from '../../src/pagination/cursor.js';
import { nextPageLink } from '../../src/pagination/next-link.js';
import type { OrderStatus, PetId } from '../../src/types/api.js';

type Filter = { status: OrderStatus | undefined; petId: PetId | undefined; placedBy?: string | undefined };
const encodeOrderCursor = (after: number, filter: Filter) => encodeCursor({ after, ...filter });
const positionWith = (cursor: string, filter: Filter) => orderPositionOf(cursor, { placedBy: undefined, ...filter });
const nextOrdersLink = (path: string, limit: number, filter: Filter, lastId: number) =>
  nextPageLink(path, { limit, ...filter, lastId });

const text = (cursor: string) => Buffer.from(cursor, 'base64url').toString('latin1');

t.test("a cursor holds its filters and the last id, in the form of listPets' cursors", async (t) => {
  t.equal(text(encodeOrderCursor(12, { status: undefined, petId: undefined })), 'v1::12');
  t.equal(text(encodeOrderCursor(12, { status: 'placed', petId: -7n })), 'v1:placed.-7:12');
  t.equal(text(encodeOrderCursor(12, { status: undefined, petId: 4, placedBy: 'kiosk_2' })), 'v1:.4~kiosk_2:12');
  for (const filter of [
    { status: undefined, petId: undefined },
    { status: 'expired' as const, petId: undefined },
    { status: undefined, petId: 9_223_372_036_854_775_807n },
    { status: 'placed' as const, petId: 3 },
    { status: 'placed' as const, petId: undefined, placedBy: 'shop-web' },
    { status: undefined, petId: 3, placedBy: 'a' },
  ])
    t.equal(
      positionWith(encodeOrderCursor(41, filter), filter),
      41,
      `read back with ${JSON.stringify(String(filter.petId))}`,
    );
  t.equal(
    nextOrdersLink('/v1/store/orders', 2, { status: 'placed', petId: 3 }, 41),
    `</v1/store/orders?limit=2&status=placed&petId=3&cursor=${encodeOrderCursor(41, { status: 'placed', petId: 3 })}>; rel="next"`,
  );
});

t.test('a cursor of other filters, or one never issued, is refused naming the cursor', async (t) => {
  const opaque = encodeOrderCursor(5, { status: 'placed', petId: 3 });
  const rejections: [string, Filter, RegExp][] = [
    [opaque, { status: 'placed', petId: undefined }, /cursor belongs to a list with other filters/],
    [opaque, { status: 'placed', petId: 3, placedBy: 'shop' }, /cursor belongs to a list with other filters/],
    [
      encodeOrderCursor(5, { status: 'placed', petId: 3, placedBy: 'shop' }),
      { status: 'placed', petId: 3, placedBy: 'kiosk' },
      /cursor belongs to a list with other filters \(status, petId, placedBy\)/,
    ],
    [opaque, { status: undefined, petId: 3 }, /cursor belongs to a list with other filters/],
    [opaque, { status: 'placed', petId: 4 }, /cursor belongs to a list with other filters/],
    [
      Buffer.from('v1:placed.3:0').toString('base64url'),
      { status: 'placed', petId: 3 },
      /not a cursor this service issued/,
    ],
    [
      Buffer.from('v1::9223372036854775808').toString('base64url'),
      { status: undefined, petId: undefined },
      /not a cursor this service issued/,
    ],
    [
      `${encodeOrderCursor(5, { status: undefined, petId: undefined })}A`,
      { status: undefined, petId: undefined },
      /not a cursor this service issued/,
    ],
  ];
  for (const [cursor, filter, message] of rejections)
    t.throws(
      () => positionWith(cursor, filter),
      { code: 'VALIDATION_FAILED', message },
      `${text(cursor)} with ${JSON.stringify(filter)}`,
    );
});

t.test("a cursor filtered by pet is listOrders': listPets refuses it as never issued", async (t) => {
  t.throws(() => positionOf(encodeCursor({ after: 5, status: undefined, petId: 3 }), undefined), {
    code: 'VALIDATION_FAILED',
    message: /not a cursor this service issued/,
  });
});
