// The one way to put something around every call of a store: signalling acknowledged writes
// (src/events/event-signal.ts), answering 503 until PostgreSQL's schema is current
// (src/store/postgres/start.ts), switching stores between test cases. The wrapper is built from the
// store's own members, so a method added to PetStore needs nothing here.
import type { PetStore } from './pet-store.js';

/**
 * Runs one call of the store: `path` names the method ('create', 'deliveries.claim'), `call` makes
 * the call on the store of the moment.
 */
export type AroundCall = (path: string, call: () => Promise<unknown>) => Promise<unknown>;

/** The methods of PetStore that change what it holds: each records an event, or is a no-op. */
export const STORE_WRITES: ReadonlySet<string> = new Set([
  'create',
  'createOnce',
  'update',
  'remove',
] satisfies (keyof PetStore)[]);

const isPlainObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * A store of the same shape as `current()`'s whose every method runs through `around`, called on
 * whichever store `current()` returns at the time of the call. Members that are not methods (a
 * pool, a promise) are read from that store too; plain objects of methods (deliveries) are wrapped
 * in turn.
 */
export function wrapStore<S extends object>(current: () => S, around: AroundCall = (_path, call) => call()): S {
  return wrapObject(current, around, '') as S;
}

function wrapObject(current: () => object, around: AroundCall, prefix: string): object {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(current())) {
    const path = `${prefix}${name}`;
    const member = () => (current() as Record<string, unknown>)[name];
    if (typeof value === 'function') {
      wrapped[name] = (...args: unknown[]) => {
        const target = current();
        return around(path, () => (Reflect.get(target, name) as (...args: unknown[]) => Promise<unknown>)(...args));
      };
    } else if (isPlainObject(value)) {
      wrapped[name] = wrapObject(member as () => object, around, `${path}.`);
    } else {
      Object.defineProperty(wrapped, name, { get: member, enumerable: true });
    }
  }
  return wrapped;
}
