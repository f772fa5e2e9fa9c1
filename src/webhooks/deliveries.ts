// Delivers the feed's events to the webhook endpoints (docs/events.md). Each endpoint is served by
// one instance at a time, under a lease in the store's ledger: it reads the events after the
// endpoint's position, POSTs them one by one in feed order, signed as Standard Webhooks defines,
// and moves the position on only after a 2xx. A failure is retried on the schedule, jittered, or
// after the receiver's Retry-After (429, 503); a 410, or a
// schedule run out, stops the endpoint until its entry changes. An instance that dies (SIGKILL)
// leaves its lease to lapse, and another one carries on from the recorded position: at least once.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { eventBody } from '../events/event-id.js';
import type { EventSignal } from '../events/event-signal.js';
import type { DeliveryState, LoggedAttempt, PetStore } from '../store/pet-store.js';
import { attempt, type AttemptOutcome, type DeliveryResult, type Signer } from './attempt.js';
import type { Endpoints } from './endpoints.js';
import type { WebhookEndpoint } from './webhooks-file.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_S } from './schedule.js';

export type { DeliveryResult } from './attempt.js';

/** How long an endpoint waits for new events between looks, when no write here wakes it. */
const IDLE_MS = 1_000;
/** Events read at a time from the feed for one endpoint. */
const BATCH = 100;

export interface DeliveryMetrics {
  delivered(endpoint: string, result: DeliveryResult): void;
  /** Seconds since the oldest event the endpoint has not accepted was recorded (0: none waits). */
  backlog(endpoint: string, seconds: number): void;
}

export interface DeliveryOptions {
  store: PetStore;
  endpoints: Endpoints;
  signal: EventSignal;
  log: FastifyBaseLogger;
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
  metrics?: DeliveryMetrics;
  /** The fetch to send with (globalThis.fetch unless a test watches). */
  fetch?: typeof fetch;
  now?: () => number;
}

export interface Deliveries {
  /** Stops delivering, waits for deliveries under way, and gives the leases up. */
  close(): Promise<void>;
}

export function startDeliveries({
  store,
  endpoints,
  signal,
  log,
  retryDelaysMs = DEFAULT_RETRY_DELAYS_S.map((seconds) => seconds * 1000),
  timeoutMs = DEFAULT_DELIVERY_TIMEOUT_MS,
  metrics,
  fetch = (input, init) => globalThis.fetch(input, init),
  now = Date.now,
}: DeliveryOptions): Deliveries {
  // Longer than an attempt can take, so that the lease outlives every delivery its holder sends.
  const leaseMs = 2 * timeoutMs + 5_000;
  const closing = new AbortController();
  const running = new Map<string, Promise<void>>();

  // A wait that closing ends at once.
  const pause = (ms: number) => sleep(ms, undefined, { signal: closing.signal }).catch(() => undefined);

  const { send, resendOne } = sender({ store, endpoints, fetch, now, timeoutMs, closing: closing.signal, metrics });

  /** Serves one endpoint while it is listed; each turn of the loop claims, then does one step. */
  const serve = async (endpoint: WebhookEndpoint) => {
    const { label, key } = endpoint;
    // The lease is this loop's, not the instance's: a loop replaced on reload (the entry edited)
    // releases only its own lease as it ends, never the one its successor on this instance holds,
    // and the successor starts once the old loop's last attempt is recorded and its lease given up.
    const owner = randomUUID();
    const record = (state: DeliveryState) => store.deliveries.record(key, owner, state, leaseMs);
    const claimOptions = {
      types: endpoint.events === undefined ? null : [...endpoint.events],
      adopt: endpoint.adopt,
    };
    let holding = false;
    // A reload that keeps the entry as it was (the same digest) keeps this loop; one that changes it starts another.
    const listed = () => endpoints.current().some((current) => current.digest === endpoint.digest);
    while (!closing.signal.aborted && listed()) {
      let state: DeliveryState | null;
      try {
        state = await store.deliveries.claim(key, owner, leaseMs, claimOptions);
      } catch (error) {
        log.warn(
          { endpoint: label, reason: (error as Error).message },
          'webhooks: cannot read where deliveries stand; retrying',
        );
        await pause(IDLE_MS);
        continue;
      }
      if (state === null) {
        // Another instance delivers to it; this one reports no backlog, so that the max over instances is that one's.
        holding = false;
        metrics?.backlog(label, 0);
        await pause(IDLE_MS);
        continue;
      }
      if (!holding)
        log.info({ endpoint: label, position: state.position }, 'webhooks: this instance delivers to the endpoint now');
      holding = true;
      try {
        // A resend goes outside the endpoint's order: whether it is retrying, or stopped.
        if (await resendOne(endpoint)) continue;
        if (state.stoppedEntry !== '') {
          if (state.stoppedEntry === endpoint.digest) {
            await pause(IDLE_MS);
            continue;
          }
          log.info(
            { endpoint: label },
            'webhooks: the entry of a stopped endpoint changed; delivering again from where it stopped',
          );
          state = { ...state, attempt: 0, dueAt: 0, stoppedEntry: '' };
          await record(state);
        }
        if (state.dueAt > now()) {
          await pause(Math.min(state.dueAt - now(), IDLE_MS));
          continue;
        }
        const page = await store.listEvents(state.position, BATCH);
        if (state.position < page.horizon) {
          log.error(
            { endpoint: label, from: state.position, to: page.horizon },
            "webhooks: events the endpoint had not accepted are past the feed's retention; they are skipped",
          );
          await record({ ...state, position: page.horizon, attempt: 0, dueAt: 0 });
          continue;
        }
        const next = page.events.find((event) => endpoint.events === undefined || endpoint.events.has(event.type));
        if (next === undefined) {
          metrics?.backlog(label, 0);
          if (page.events.length > 0) await record({ ...state, position: page.events.at(-1)!.seq });
          else await signal.wait(state.position, IDLE_MS, closing.signal);
          continue;
        }
        metrics?.backlog(label, Math.max(0, (now() - next.occurredAt) / 1000));
        const body = eventBody(page.epoch, next);
        const attemptedAt = now();
        const sent = await send(endpoint, { seq: next.seq, body }, false);
        // An attempt this instance abandoned as it closes is not the endpoint's failure: another instance sends it.
        if (closing.signal.aborted) break;
        // Removed or disabled since it was listed: nothing sent, and the next look drops it.
        if (sent === undefined) {
          await pause(IDLE_MS);
          continue;
        }
        const { result, reason, status, retryAfterMs } = sent;
        // Refused when an operator set the position meanwhile: the next turn starts from there.
        const attempt = { at: attemptedAt, event: next.seq, status, result, reason, retryAfterMs };
        await record(nextState({ state, endpoint, event: body.id, attempt }, retryDelaysMs, log, now));
      } catch (error) {
        log.warn({ endpoint: label, reason: (error as Error).message }, 'webhooks: cannot deliver now; retrying');
        await pause(IDLE_MS);
      }
    }
    // Gone from the file or the API, or disabled (or this instance closing): it holds back nothing here any more.
    metrics?.backlog(label, 0);
    await store.deliveries.release(key, owner).catch(() => undefined);
  };

  const sync = () => {
    for (const endpoint of endpoints.current()) {
      if (running.has(endpoint.digest)) continue;
      running.set(
        endpoint.digest,
        serve(endpoint).finally(() => running.delete(endpoint.digest)),
      );
    }
  };
  endpoints.onChange(sync);
  sync();

  return {
    async close() {
      closing.abort();
      await Promise.all(running.values());
    },
  };
}

/**
 * The wait before retry `attempt` (0 for the first retry): equal jitter, a uniform draw between
 * half the schedule's step and the whole of it, so that endpoints failing together (a receiver
 * restarting) are not all retried in the same second, and no schedule ends before half its sum
 * (with full jitter, a draw from 0, a day-long step could be a minute, and one endpoint in five
 * stopped before 2.5 days of the default schedule). A Retry-After the receiver sent (429, 503) is
 * waited for instead when it asks for longer, up to the schedule's longest step.
 */
export function retryDelayMs(
  retryDelaysMs: readonly number[],
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const step = retryDelaysMs[attempt]!;
  const jittered = Math.floor(step / 2 + (random() * step) / 2);
  if (retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, Math.max(...retryDelaysMs)));
}

/** Where the endpoint's deliveries stand after an attempt at event `next`: moved on, stopped, or a retry due. */
function nextState(
  {
    state: before,
    endpoint,
    event,
    attempt,
  }: {
    state: DeliveryState;
    endpoint: WebhookEndpoint;
    event: string;
    attempt: {
      at: number;
      event: number;
      status: number | undefined;
      result: DeliveryResult;
      reason: string | undefined;
      retryAfterMs: number | undefined;
    };
  },
  retryDelaysMs: readonly number[],
  log: FastifyBaseLogger,
  now: () => number,
): DeliveryState {
  const label = endpoint.label;
  const { result, reason, retryAfterMs } = attempt;
  const error = result === 'delivered' ? undefined : reason;
  const state = { ...before, lastAttempt: { at: attempt.at, event: attempt.event, status: attempt.status, error } };
  if (result === 'delivered') return { ...state, position: attempt.event, attempt: 0, dueAt: 0 };
  if (result === 'gone') {
    log.warn(
      { endpoint: label, event },
      'webhooks: the endpoint responded with 410 Gone; no more deliveries until its entry changes',
    );
    return { ...state, stoppedEntry: endpoint.digest };
  }
  if (state.attempt >= retryDelaysMs.length) {
    log.error(
      { endpoint: label, event, reason, attempts: state.attempt + 1 },
      "webhooks: the retry schedule ran out; no more deliveries until the endpoint's entry changes",
    );
    return { ...state, attempt: state.attempt + 1, stoppedEntry: endpoint.digest };
  }
  const delayMs = retryDelayMs(retryDelaysMs, state.attempt, retryAfterMs);
  log.warn(
    { endpoint: label, event, reason, attempt: state.attempt + 1, retryInMs: delayMs },
    'webhooks: a delivery failed; retrying',
  );
  return { ...state, attempt: state.attempt + 1, dueAt: now() + delayMs };
}

/** The attempt as the log keeps it: a 410 is a failure there (the endpoint's state says it stopped). */
function loggedAttempt(at: number, event: number, outcome: AttemptOutcome, resend: boolean): LoggedAttempt {
  const { result, status, reason, timedOut, durationMs } = outcome;
  return {
    at,
    event,
    status,
    result: result === 'delivered' ? 'delivered' : timedOut === true ? 'timed_out' : 'failed',
    durationMs,
    error: result === 'delivered' ? undefined : reason,
    resend,
  };
}

interface SenderOptions {
  store: PetStore;
  endpoints: Endpoints;
  fetch: typeof globalThis.fetch;
  now: () => number;
  timeoutMs: number;
  closing: AbortSignal;
  metrics: DeliveryMetrics | undefined;
}

/** Sending one event and logging the attempt; and the resends operators asked for. */
function sender({ store, endpoints, fetch, now, timeoutMs, closing, metrics }: SenderOptions) {
  /**
   * Sends the event once, to the endpoint as it is now and signed with its live secrets, and logs the
   * attempt (resend: asked for by resendWebhookEvent); undefined when the endpoint is gone or disabled.
   */
  const send = async (
    listed: WebhookEndpoint,
    event: { seq: number; body: ReturnType<typeof eventBody> },
    resend: boolean,
  ): Promise<AttemptOutcome | undefined> => {
    const endpoint = endpoints.latest === undefined ? listed : await endpoints.latest(listed);
    if (endpoint === null) return undefined;
    const signers: Signer[] = endpoint.secrets.map((secret, index) => ({
      webhook: new Webhook(secret),
      expiresAt: endpoint.expiries?.[index] ?? null,
    }));
    const at = now();
    const outcome = await attempt({ fetch, now, timeoutMs, closing }, endpoint, signers, event.body);
    if (!closing.aborted) {
      metrics?.delivered(endpoint.label, outcome.result);
      await store.deliveries.logAttempt(endpoint.key, loggedAttempt(at, event.seq, outcome, resend));
    }
    return outcome;
  };

  /** Sends the oldest resend asked for, if there is one; whether there was. */
  const resendOne = async (endpoint: WebhookEndpoint) => {
    const next = await store.deliveries.nextResend(endpoint.key);
    if (next === undefined) return false;
    const page = await store.listEvents(next.event - 1, 1);
    const event = page.events[0];
    if (event?.seq === next.event) await send(endpoint, { seq: event.seq, body: eventBody(page.epoch, event) }, true);
    // One past retention meanwhile (the request was checked against the feed) is dropped, as its attempts are.
    if (!closing.aborted) await store.deliveries.resent(endpoint.key, next.n);
    return true;
  };
  return { send, resendOne };
}
