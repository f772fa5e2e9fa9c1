// Where each webhook endpoint's deliveries stand, shared by every instance: an endpoint is
// delivered by one instance at a time, under a lease (src/webhooks/deliveries.ts).
import type { DeliveryLedger, DeliveryState } from '../pet-store.js';
import type { Statement, Statements } from './statement.js';

interface DeliveryRow {
  position: number;
  attempt: number;
  due_at: Date | null;
  stopped_entry: string;
}

const LEASE_UNTIL = 'clock_timestamp() + make_interval(secs => $3::double precision / 1000)';

export const DELIVERY_STATEMENTS = {
  // An endpoint's deliveries, leased to $2 for $3 ms unless another instance holds them.
  claimDeliveries: {
    name: 'claim-deliveries',
    text: `UPDATE webhook_endpoints SET lease_owner = $2, lease_until = ${LEASE_UNTIL}
      WHERE url = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < clock_timestamp())
      RETURNING position, attempt, due_at, stopped_entry`,
  },
  // An endpoint seen for the first time is added, starting after the newest event.
  addDeliveries: {
    name: 'add-deliveries',
    text: `INSERT INTO webhook_endpoints (url, position, lease_owner, lease_until)
      SELECT $1, GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed)),
        $2, ${LEASE_UNTIL}
      ON CONFLICT (url) DO NOTHING RETURNING position, attempt, due_at, stopped_entry`,
  },
  recordDeliveries: {
    name: 'record-deliveries',
    text: `UPDATE webhook_endpoints SET position = $3, attempt = $4, due_at = $5, stopped_entry = $6,
        lease_until = clock_timestamp() + make_interval(secs => $7::double precision / 1000)
      WHERE url = $1 AND lease_owner = $2 RETURNING true AS recorded`,
  },
  releaseDeliveries: {
    name: 'release-deliveries',
    text: `UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE url = $1 AND lease_owner = $2`,
  },
} as const satisfies Record<string, Statement>;

const stateOf = (row: DeliveryRow): DeliveryState => ({
  position: row.position,
  attempt: row.attempt,
  dueAt: row.due_at?.getTime() ?? 0,
  stoppedEntry: row.stopped_entry,
});

export function createDeliveryLedger(statements: Statements): DeliveryLedger {
  const { claimDeliveries, addDeliveries, recordDeliveries, releaseDeliveries } = DELIVERY_STATEMENTS;
  return {
    async claim(endpoint, owner, leaseMs) {
      const values = [endpoint, owner, leaseMs];
      const [claimed] = await statements.rows(claimDeliveries, values, stateOf);
      if (claimed !== undefined) return claimed;
      const [added] = await statements.rows(addDeliveries, values, stateOf);
      return added ?? null;
    },
    async record(endpoint, owner, { position, attempt, dueAt, stoppedEntry }, leaseMs) {
      const values = [endpoint, owner, position, attempt, dueAt === 0 ? null : new Date(dueAt), stoppedEntry, leaseMs];
      return (await statements.run(recordDeliveries, values)).rows.length === 1;
    },
    async release(endpoint, owner) {
      await statements.run(releaseDeliveries, [endpoint, owner]);
    },
  };
}
