// Where each webhook endpoint's deliveries stand, shared by every instance: an endpoint is
// delivered by one instance at a time, under a lease (src/webhooks/deliveries.ts). An operator may
// move its position (setWebhookPosition): that counts a generation, and a record made under an
// older one is refused, so a delivery under way never moves a position set meanwhile back.
import type { DeliveryLedger, DeliveryState, NumberedAttempt } from '../pet-store.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

interface DeliveryRow {
  url: string;
  position: number;
  attempt: number;
  due_at: Date | null;
  stopped_entry: string;
  generation: number;
  skipped: string;
  last_attempt_at: Date | null;
  last_event: number | null;
  last_status: number | null;
  last_error: string | null;
}

export const DELIVERY_STATEMENTS = statementsOf('webhook-deliveries', {
  claimDeliveries: 'claim-deliveries',
  addDeliveries: 'add-deliveries',
  recordDeliveries: 'record-deliveries',
  releaseDeliveries: 'release-deliveries',
  readDeliveries: 'read-deliveries',
  setDeliveryPosition: 'set-delivery-position',
  logAttempt: 'log-attempt',
  listAttempts: 'list-attempts',
  addResend: 'add-resend',
  nextResend: 'next-resend',
  deleteResend: 'delete-resend',
});

interface AttemptRow {
  n: string;
  event: string;
  attempted_at: Date;
  status: number | null;
  result: NumberedAttempt['result'];
  duration_ms: number;
  error: string | null;
  resend: boolean;
}

const attemptOf = (row: AttemptRow): NumberedAttempt => ({
  n: Number(row.n),
  at: row.attempted_at.getTime(),
  event: Number(row.event),
  status: row.status ?? undefined,
  result: row.result,
  durationMs: row.duration_ms,
  error: row.error ?? undefined,
  resend: row.resend,
});

const stateOf = (row: DeliveryRow): DeliveryState => ({
  position: Number(row.position),
  attempt: row.attempt,
  dueAt: row.due_at?.getTime() ?? 0,
  stoppedEntry: row.stopped_entry,
  generation: row.generation,
  skipped: Number(row.skipped),
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
  const { logAttempt, listAttempts, addResend, nextResend, deleteResend } = DELIVERY_STATEMENTS;
  return {
    async claim(endpoint, owner, leaseMs, options) {
      const values = [endpoint, owner, leaseMs, options?.types ?? null];
      const [claimed] = await statements.rows(claimDeliveries, values, stateOf);
      if (claimed !== undefined) return claimed;
      const [added] = await statements.rows(addDeliveries, [...values, options?.adopt ?? null], stateOf);
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
    async logAttempt(endpoint, { at, event, status, result, durationMs, error, resend }) {
      const values = [endpoint, event, new Date(at), status ?? null, result, durationMs, error ?? null, resend];
      await statements.run(logAttempt, values);
    },
    async attempts(endpoint, { event, after = 0, limit }) {
      const found = await statements.rows(listAttempts, [endpoint, after, event ?? null, limit], attemptOf);
      return { attempts: found.slice(0, limit), more: found.length > limit };
    },
    async resend(endpoint, event) {
      await statements.run(addResend, [endpoint, event]);
    },
    async nextResend(endpoint) {
      const [next] = await statements.rows(nextResend, [endpoint], (row: { n: string; event: string }) => ({
        n: Number(row.n),
        event: Number(row.event),
      }));
      return next;
    },
    async resent(endpoint, n) {
      await statements.run(deleteResend, [endpoint, n]);
    },
  };
}
