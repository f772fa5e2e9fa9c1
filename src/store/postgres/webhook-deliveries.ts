// Where each webhook endpoint's deliveries stand, shared by every instance: an endpoint is
// delivered by one instance at a time, under a lease (src/webhooks/deliveries.ts). An operator may
// move its position (setWebhookPosition): that counts a generation, and a record made under an
// older one is refused, so a delivery under way never moves a position set meanwhile back.
import type { DeliveryLedger, DeliveryState } from '../pet-store.js';
import { FEED_END } from './event-feed.js';
import type { Statement, Statements } from './statement.js';

interface DeliveryRow {
  url: string;
  position: number;
  attempt: number;
  due_at: Date | null;
  stopped_entry: string;
  generation: number;
  last_attempt_at: Date | null;
  last_event: number | null;
  last_status: number | null;
  last_error: string | null;
}

const LEASE_UNTIL = 'clock_timestamp() + make_interval(secs => $3::double precision / 1000)';
const STATE =
  'url, position, attempt, due_at, stopped_entry, generation, last_attempt_at, last_event, last_status, last_error';

export const DELIVERY_STATEMENTS = {
  // An endpoint's deliveries, leased to $2 for $3 ms unless another instance holds them.
  claimDeliveries: {
    name: 'claim-deliveries',
    text: `UPDATE webhook_endpoints SET lease_owner = $2, lease_until = ${LEASE_UNTIL}
      WHERE url = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < clock_timestamp())
      RETURNING ${STATE}`,
  },
  // An endpoint seen for the first time is added, starting after the newest event.
  addDeliveries: {
    name: 'add-deliveries',
    text: `INSERT INTO webhook_endpoints (url, position, lease_owner, lease_until)
      SELECT $1, ${FEED_END}, $2, ${LEASE_UNTIL}
      ON CONFLICT (url) DO NOTHING RETURNING ${STATE}`,
  },
  recordDeliveries: {
    name: 'record-deliveries',
    text: `UPDATE webhook_endpoints SET position = $3, attempt = $4, due_at = $5, stopped_entry = $6,
        lease_until = clock_timestamp() + make_interval(secs => $7::double precision / 1000),
        last_attempt_at = $9, last_event = $10, last_status = $11, last_error = $12
      WHERE url = $1 AND lease_owner = $2 AND generation = $8 RETURNING true AS recorded`,
  },
  releaseDeliveries: {
    name: 'release-deliveries',
    text: `UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE url = $1 AND lease_owner = $2`,
  },
  // Each endpoint named; one not seen yet as it will start, after the feed's end.
  readDeliveries: {
    name: 'read-deliveries',
    text: `SELECT u.url, COALESCE(w.position, ${FEED_END}) AS position, COALESCE(w.attempt, 0) AS attempt, w.due_at,
        COALESCE(w.stopped_entry, '') AS stopped_entry, COALESCE(w.generation, 0) AS generation,
        w.last_attempt_at, w.last_event, w.last_status, w.last_error
      FROM unnest($1::text[]) AS u (url) LEFT JOIN webhook_endpoints w ON w.url = u.url`,
  },
  // $2 null: the feed's end.
  setDeliveryPosition: {
    name: 'set-delivery-position',
    text: `INSERT INTO webhook_endpoints (url, position, generation) VALUES ($1, COALESCE($2::bigint, ${FEED_END}), 1)
      ON CONFLICT (url) DO UPDATE SET position = EXCLUDED.position, attempt = 0, due_at = NULL, stopped_entry = '',
        generation = webhook_endpoints.generation + 1
      RETURNING ${STATE}`,
  },
} as const satisfies Record<string, Statement>;

const stateOf = (row: DeliveryRow): DeliveryState => ({
  position: Number(row.position),
  attempt: row.attempt,
  dueAt: row.due_at?.getTime() ?? 0,
  stoppedEntry: row.stopped_entry,
  generation: row.generation,
  lastAttempt:
    row.last_attempt_at === null
      ? undefined
      : {
          at: row.last_attempt_at.getTime(),
          event: Number(row.last_event),
          status: row.last_status ?? undefined,
          error: row.last_error ?? undefined,
        },
});

export function createDeliveryLedger(statements: Statements): DeliveryLedger {
  const { claimDeliveries, addDeliveries, recordDeliveries, releaseDeliveries, readDeliveries, setDeliveryPosition } =
    DELIVERY_STATEMENTS;
  return {
    async claim(endpoint, owner, leaseMs) {
      const values = [endpoint, owner, leaseMs];
      const [claimed] = await statements.rows(claimDeliveries, values, stateOf);
      if (claimed !== undefined) return claimed;
      const [added] = await statements.rows(addDeliveries, values, stateOf);
      return added ?? null;
    },
    async record(endpoint, owner, { position, attempt, dueAt, stoppedEntry, generation, lastAttempt }, leaseMs) {
      const values = [
        endpoint,
        owner,
        position,
        attempt,
        dueAt === 0 ? null : new Date(dueAt),
        stoppedEntry,
        leaseMs,
        generation,
        lastAttempt === undefined ? null : new Date(lastAttempt.at),
        lastAttempt?.event ?? null,
        lastAttempt?.status ?? null,
        lastAttempt?.error ?? null,
      ];
      return (await statements.run(recordDeliveries, values)).rows.length === 1;
    },
    async release(endpoint, owner) {
      await statements.run(releaseDeliveries, [endpoint, owner]);
    },
    async read(endpoints) {
      const { rows } = await statements.run<DeliveryRow>(readDeliveries, [endpoints]);
      return new Map(rows.map((row) => [row.url, stateOf(row)]));
    },
    async setPosition(endpoint, position) {
      const [state] = await statements.rows(setDeliveryPosition, [endpoint, position ?? null], stateOf);
      return state!;
    },
  };
}
