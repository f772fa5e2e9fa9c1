// The one way to put something around every call of a store: signalling acknowledged writes
// (src/events/event-signal.ts), responding 503 until PostgreSQL's schema is current
// (src/store/postgres/start.ts), switching stores between test cases. The wrapper is built from the
// store's own members, so a method added to PetStore needs nothing here.
import type { OrderStore } from './order-store.js';
import type { PetStore } from './pet-store.js';

/**
 * What runs around each call of the method at `path` ('create', 'deliveries.claim'), chosen once when
 * the store is wrapped; `call` makes the call on the store of the moment. Undefined: the method is
 * passed through as it is.
 */
export type AroundMethod = (path: string) => ((call: () => Promise<unknown>) => Promise<unknown>) | undefined;

/** The methods of PetStore that change what it holds: each records an event, or is a no-op. */
export const STORE_WRITES: ReadonlySet<string> = new Set([
  ...(['create', 'createOnce', 'update', 'remove'] satisfies (keyof PetStore)[]),
  ...(['place', 'cancel', 'complete', 'expire'] satisfies (keyof OrderStore)[]).map((method) => `orders.${method}`),
]);

const isPlainObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * A store of the same shape as `current()`'s whose methods run through what `aroundOf` chose for
 * each, called on whichever store `current()` returns at the time of the call. Members that are not
 * methods (a pool, a promise) are read from that store too; plain objects of methods (deliveries)
 * are wrapped in turn.
 */
export function wrapStore<S extends object>(current: () => S, aroundOf: AroundMethod = () => undefined): S {
  return wrapObject(current, aroundOf, '') as S;
}

type Method = (...args: unknown[]) => Promise<unknown>;

function wrapObject(current: () => object, aroundOf: AroundMethod, prefix: string): object {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(current())) {
    const path = `${prefix}${name}`;
    const member = () => (current() as Record<string, unknown>)[name];
    if (typeof value === 'function') {
      const around = aroundOf(path);
      const call = (target: object, args: unknown[]) =>
        Reflect.apply(Reflect.get(target, name) as Method, target, args);
      wrapped[name] =
        around === undefined
          ? (...args: unknown[]) => call(current(), args)
          : (...args: unknown[]) => {
              const target = current();
              return around(() => call(target, args));
            };
    } else if (isPlainObject(value)) {
      wrapped[name] = wrapObject(member as () => object, aroundOf, `${path}.`);
    } else {
      Object.defineProperty(wrapped, name, { get: member, enumerable: true });
    }
  }
  return wrapped;
}
