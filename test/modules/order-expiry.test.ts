// The sweep that ends holds (src/store/order-expiry.ts): each second, told when it expired some, a
// failing store logged once per outage, and never a sweep stacked on one still running.
import t from 'tap';
import pino from 'pino';
import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { startOrderExpiry } from '../../src/store/order-expiry.js';
import { standInStore } from '../helpers/stand-in-store.js';
import { until } from '../helpers/until.js';

function logged() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ level: 'warn' }, stream) as unknown as FastifyBaseLogger, lines };
}

t.test('a sweep that expired orders says so; a failing one is logged once until it works again', async (t) => {
  const responses: (number | Error)[] = [
    2,
    0,
    new Error('database away'),
    new Error('database away'),
    0,
    new Error('again'),
  ];
  let calls = 0;
  const store = standInStore({
    orders: {
      ...standInStore().orders,
      expire: async () => {
        const response = responses[Math.min(calls++, responses.length - 1)]!;
        if (response instanceof Error) throw response;
        return response;
      },
    },
  });
  const { log, lines } = logged();
  let told = 0;
  const expiry = startOrderExpiry(store, log, () => told++, 5);
  await until('six sweeps', () => calls >= 6);
  await expiry.close();
  t.equal(told, 1, 'told once: the sweep that expired two');
  const warnings = lines.filter((line) => line.includes('cannot expire orders now'));
  t.equal(warnings.length, 2, 'one warning per outage, not per sweep');
  t.match(warnings[0], /database away/);
});

t.test('a sweep slower than the period is not stacked on', async (t) => {
  let running = 0;
  let most = 0;
  let release: () => void = () => undefined;
  const store = standInStore({
    orders: {
      ...standInStore().orders,
      expire: () => {
        running++;
        most = Math.max(most, running);
        return new Promise<number>((resolve) => {
          release = () => {
            running--;
            resolve(0);
          };
        });
      },
    },
  });
  const expiry = startOrderExpiry(store, logged().log, () => undefined, 2);
  await until('a sweep under way', () => running === 1);
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.equal(most, 1, 'one sweep at a time');
  release();
  await expiry.close();
});
