// Deliveries to a real HTTP receiver on loopback, with the in-memory store: the receiver, the
// endpoints and the started deliveries that the tests of test/webhooks/ share.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Test } from 'tap';
import type { FastifyBaseLogger } from 'fastify';
import { createEventSignal, signalling } from '../../src/events/event-signal.js';
import type { PetStore } from '../../src/store/pet-store.js';
import { startDeliveries, type DeliveryResult } from '../../src/webhooks/deliveries.js';
import type { Endpoints } from '../../src/webhooks/endpoints.js';
import { webhooksFileEndpoints, type WebhookEndpoint } from '../../src/webhooks/webhooks-file.js';

/** Endpoints that never change, as a file never edited gives them. */
export const fixedEndpoints = (endpoints: readonly WebhookEndpoint[]): Endpoints => ({
  current: () => endpoints,
  onChange: () => undefined,
  close: () => undefined,
});

export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

type ReceiverReply = number | 'hang' | { status: number; headers?: Record<string, string>; afterMs?: number };

/** A receiver on loopback that responds to each delivery with `reply(n)` (n counts from 0). */
export async function receiver(t: Test, reply: (n: number, body: string) => ReceiverReply = () => 204) {
  const received: (Received & { at: number })[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const given = reply(received.length, body);
      received.push({ headers: request.headers, body, at: Date.now() });
      if (given === 'hang') return;
      const { status, headers = {}, afterMs = 0 } = typeof given === 'number' ? { status: given } : given;
      setTimeout(() => response.writeHead(status, headers).end('ignored'), afterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?token=abc`, received };
}

export const endpointsYaml = (url: string, extra = '') =>
  `endpoints:\n  - url: ${url}\n    secret: ${SECRET}\n${extra}`;
export const endpoint = (url: string, extra = '') => webhooksFileEndpoints(endpointsYaml(url, extra), 'test')[0]!;

function logs() {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(line) },
  ) as unknown as FastifyBaseLogger;
  return { log, text: () => lines.join('') };
}

/** Deliveries of `store` (signalled) to `endpoints`, stopped on teardown, with their metrics recorded. */
export function deliver(
  t: Test,
  store: PetStore,
  endpoints: Parameters<typeof startDeliveries>[0]['endpoints'],
  options: Partial<Parameters<typeof startDeliveries>[0]> = {},
) {
  const signal = createEventSignal();
  const results: [string, DeliveryResult][] = [];
  const backlog = new Map<string, number>();
  const { log, text } = logs();
  const deliveries = startDeliveries({
    store,
    endpoints,
    signal,
    log,
    retryDelaysMs: [50, 50],
    timeoutMs: 500,
    metrics: {
      delivered: (label, result) => results.push([label, result]),
      backlog: (label, seconds) => backlog.set(label, seconds),
    },
    ...options,
  });
  t.teardown(() => deliveries.close());
  return { store: signalling(store, signal), deliveries, results, backlog, logs: text };
}
