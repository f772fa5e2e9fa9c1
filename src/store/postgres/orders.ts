// Orders in PostgreSQL: the writes that arrive together are one call of order_batch
// (sql/functions/orders.sql), so one statement and one transaction (batched as creates are,
// batch-queue.ts), which takes the write lock before it reads an order or a pet: no pet is held
// twice (and the orders_one_hold index would refuse it if one were), and an order's move and its
// pet's are one step. Reads are plain statements (sql/statements/orders.sql): a placed order past
// its expires_at reads as expired there, by the database's clock. Each carries its client: another
// client's order is missing to it (unless it sees every order), and a place counts the client's
// placed orders under the write lock, so its cap is exact across instances.
import type { CancelReason, OrderId, OrderStatus, PetId, PetStatus } from '../../types/api.js';
import type {
  OrderListOptions,
  OrderOutcome,
  OrderPage,
  OrderStore,
  OrderViewer,
  Placing,
  StoredOrder,
} from '../order-store.js';
import { changeKeyName, type ChangeKey } from '../../idempotency/idempotency-key.js';
import type { ReadAt } from '../read-at.js';
import { inRounds } from './batch-queue.js';
import type { PositionedRow, ReadRouter } from './replicas.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

interface OrderRow {
  id: OrderId;
  pet_id: PetId;
  placed_by: string | null;
  status: OrderStatus;
  placed_at: number;
  expires_at: number;
  closed_at: number | null;
  cancel_reason: CancelReason | null;
}

interface ResultRow extends OrderRow {
  outcome: 'done' | 'replayed' | 'reused' | 'missing' | 'unavailable' | 'conflict' | 'limited';
  detail: string | null;
}

export const ORDER_STATEMENTS = statementsOf('orders', {
  writeOrders: 'write-orders',
  getOrder: 'get-order',
  listOrders: 'list-orders',
  expireOrders: 'expire-orders',
});

export const orderOfRow = (row: OrderRow): StoredOrder => {
  const order: StoredOrder = {
    id: row.id,
    petId: row.pet_id,
    status: row.status,
    placedAt: row.placed_at,
    expiresAt: row.expires_at,
  };
  if (row.placed_by !== null) order.placedBy = row.placed_by;
  if (row.closed_at !== null) order.closedAt = row.closed_at;
  if (row.cancel_reason !== null) order.cancelReason = row.cancel_reason;
  return order;
};

/** One order operation waiting for its batch: 'place' a pet, or move an order to 'cancelled' or 'completed'. */
export interface OrderWrite {
  kind: 'place' | 'cancelled' | 'completed';
  /** The pet to hold, or the order to move. */
  target: PetId | OrderId;
  holdSeconds?: number;
  /** Whose request it is. */
  client: string;
  /** A move: whether the caller sees every client's orders. */
  everyOrder?: boolean;
  /** A place: how many placed orders the client may hold. */
  maxHolds?: number;
  key: ChangeKey | undefined;
}

function outcomeOf(row: ResultRow): OrderOutcome {
  switch (row.outcome) {
    case 'reused':
    case 'missing':
      return { kind: row.outcome };
    case 'limited':
      return { kind: 'limited', limit: Number(row.detail) };
    case 'unavailable': {
      const detail = row.detail!;
      if (detail === 'missing' || detail === 'removed') return { kind: 'unavailable', unavailable: { why: detail } };
      const status = detail.slice('status:'.length);
      return {
        kind: 'unavailable',
        unavailable: { why: 'status', status: status === '' ? undefined : (status as PetStatus) },
      };
    }
    default:
      return { kind: row.outcome, order: orderOfRow(row) };
  }
}

/**
 * Writes a batch: one order_batch call per round, a key at most once in each (a retry sent with its
 * first request waits for that one's response, as it would alone).
 */
export const orderWriter =
  (statements: Statements) =>
  (writes: OrderWrite[]): Promise<OrderOutcome[]> =>
    inRounds(
      writes,
      ({ key }) => (key === undefined ? [] : [changeKeyName(key)]),
      async (round) => {
        const { rows } = await statements.run<ResultRow>(ORDER_STATEMENTS.writeOrders, [
          round.map(({ kind }) => kind),
          round.map(({ target }) => String(target)),
          round.map(({ holdSeconds }) => holdSeconds ?? null),
          round.map(({ client }) => client),
          round.map(({ everyOrder }) => everyOrder ?? false),
          round.map(({ maxHolds }) => maxHolds ?? null),
          round.map(({ key }) => (key === undefined ? null : `\\x${key.scope}`)),
          round.map(({ key }) => key?.operation ?? null),
          round.map(({ key }) => key?.key ?? null),
          round.map(({ key }) => key?.request ?? null),
        ]);
        return rows.map(outcomeOf);
      },
    );

/** A row of get-order or list-orders: an order, or nulls when there is none, and where it was read. */
type ReadRow = PositionedRow & Omit<OrderRow, 'id'> & { id: OrderId | null };

/** The orders of read rows, the rows emptied (statement.ts says why). */
function ordersOf(rows: ReadRow[]): StoredOrder[] {
  const orders = rows[0]!.id === null ? [] : rows.map((row) => orderOfRow(row as OrderRow));
  rows.length = 0;
  return orders;
}

export function createOrders(
  statements: Statements,
  reads: ReadRouter,
  submit: (write: OrderWrite) => Promise<OrderOutcome>,
): OrderStore {
  const { getOrder, listOrders, expireOrders } = ORDER_STATEMENTS;
  return {
    place: (petId: PetId, holdSeconds: number, { client, maxHolds, key }: Placing) =>
      submit({ kind: 'place', target: petId, holdSeconds, client, maxHolds, key }),
    cancel: (id: OrderId, { client, everyOrder }: OrderViewer, key?: ChangeKey) =>
      submit({ kind: 'cancelled', target: id, client, everyOrder, key }),
    complete: (id: OrderId, { client, everyOrder }: OrderViewer, key?: ChangeKey) =>
      submit({ kind: 'completed', target: id, client, everyOrder, key }),
    async get(id: OrderId, viewer: OrderViewer, at?: ReadAt) {
      const [order] = ordersOf((await reads.run<ReadRow>(getOrder, [id, ownerFilter(viewer)], at)).rows);
      return order ?? null;
    },
    // One row more than the page tells whether more follow.
    async list({ viewer, limit, status, petId, placedBy, after, at }: OrderListOptions): Promise<OrderPage> {
      const { rows } = await reads.run<ReadRow>(
        listOrders,
        [after ?? 0, petId ?? null, status ?? null, limit + 1, ownerFilter(viewer, placedBy)],
        at,
      );
      const orders = ordersOf(rows);
      const more = orders.length > limit;
      if (more) orders.length = limit;
      return { orders, more };
    },
    async expire() {
      const { rows } = await statements.run<{ expired: number }>(expireOrders, []);
      return rows[0]!.expired;
    },
  };
}

/** The client whose orders a viewer reads: its own, or (seeing every order) the one it asks for, or all (null). */
function ownerFilter({ client, everyOrder }: OrderViewer, placedBy?: string): string | null {
  return everyOrder ? (placedBy ?? null) : client;
}
