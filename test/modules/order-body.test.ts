// An order as the spec's Order (src/handlers/order-outcome.ts): times in RFC 3339 with milliseconds,
// and placedBy only when the order has an owner (orders placed before 1.5.0 have none).
import t from 'tap';
import { orderBody } from '../../src/handlers/order-outcome.js';

t.test('an order placed before owners were recorded has no placedBy; one placed since names it', async (t) => {
  const placed = { id: 7, petId: 3, status: 'placed' as const, placedAt: 0, expiresAt: 900_000 };
  t.same(orderBody(placed), {
    id: 7,
    petId: 3,
    status: 'placed',
    placedAt: '1970-01-01T00:00:00.000Z',
    expiresAt: '1970-01-01T00:15:00.000Z',
  });
  t.same(orderBody({ ...placed, placedBy: 'shop', status: 'cancelled', closedAt: 60_000, cancelReason: 'store' }), {
    id: 7,
    petId: 3,
    placedBy: 'shop',
    status: 'cancelled',
    placedAt: '1970-01-01T00:00:00.000Z',
    expiresAt: '1970-01-01T00:15:00.000Z',
    closedAt: '1970-01-01T00:01:00.000Z',
    cancelReason: 'store',
  });
});
