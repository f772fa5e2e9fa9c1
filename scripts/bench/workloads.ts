// What the benchmark sends: a workload is a request (or a request maker) autocannon repeats.
import type autocannon from 'autocannon';
import { encodeCursor } from '../../src/pagination/cursor.js';
import type { BenchOptions } from './options.js';

export interface Workload {
  name: string;
  path: string | ((pets: number) => string);
  options: (pets: number) => Partial<autocannon.Options>;
}

export const pathOf = (workload: Workload, pets: number) =>
  typeof workload.path === 'string' ? workload.path : workload.path(pets);

const STATUSES = ['available', 'pending', 'sold'];

/** A page of 20 pets from the first. */
export const LIST_20: Workload = { name: 'list 20', path: '/v1/pets?limit=20', options: () => ({}) };

/** getPet of a pet drawn at random among those seeded. */
export const GET_RANDOM_ID: Workload = {
  name: 'get random id',
  path: '/v1/pets/1',
  options: (pets) => ({
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `/v1/pets/${1 + Math.floor(Math.random() * pets)}` }),
      },
    ],
  }),
};

/** A create of an available pet: the bench's create workload, and what an order is set against. */
export const createWorkload = (AUTH: Record<string, string>): Workload => ({
  name: 'create',
  path: '/v1/pets',
  options: () => ({
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' }),
  }),
});

/**
 * The PostgreSQL store's create throughput at several concurrencies: not a workload of the tables, but chosen the same
 * way.
 */
export const CREATE_THROUGHPUT = 'create throughput';
/** The change feed's measurements (scripts/bench/measure-events.ts): chosen the same way. */
export const EVENTS = 'events';
/** What an order costs against a create on PostgreSQL (scripts/bench/measure-orders.ts): chosen the same way. */
export const ORDERS = 'orders';
/** Keyed changes beside unkeyed ones, three instances on PostgreSQL (scripts/bench/measure-changes.ts): the same. */
export const CHANGES = 'keyed changes';
/** Reads with and without a streaming replica (scripts/bench/measure-replicas.ts): the same. */
export const REPLICAS = 'replica reads';

/**
 * The workloads of a run (all, or those --workloads names), those counted under valgrind, and whether create throughput
 * is measured.
 */
export function workloadsFor(
  { workloads: named, instructions, instructionWorkloads }: BenchOptions,
  AUTH: Record<string, string>,
) {
  // Unique across servers, rounds and runs on one database.
  const KEY_PREFIX = `bench-${process.pid}-${Date.now()}`;
  let keysSent = 0;
  const all: Workload[] = [
    LIST_20,
    { name: 'list 100, 1% status', path: '/v1/pets?limit=100&status=sold', options: () => ({}) },
    // The page a client reaches by following next links half-way through the store.
    {
      name: 'page of 100 from the middle',
      path: (pets) =>
        `/v1/pets?limit=100&cursor=${encodeCursor({ after: Math.max(1, Math.floor(pets / 2)), status: undefined })}`,
      options: () => ({}),
    },
    GET_RANDOM_ID,
    createWorkload(AUTH),
    // A change of a random pet's status, conditional on its version ('*': any, so that concurrent
    // connections never meet a 412), as the service writes every change.
    {
      name: 'update',
      path: '/v1/pets/1',
      options: (pets) => ({
        requests: [
          {
            method: 'PATCH',
            headers: { ...AUTH, 'content-type': 'application/merge-patch+json', 'if-match': '*' },
            setupRequest: (request) => ({
              ...request,
              path: `/v1/pets/${1 + Math.floor(Math.random() * pets)}`,
              body: `{"status":"${STATUSES[Math.floor(Math.random() * STATUSES.length)]}"}`,
            }),
          },
        ],
      }),
    },
    // Every request a new key (so every one creates a pet, as the first try of a create does): what
    // recording the key costs beside the create above.
    {
      name: 'create, Idempotency-Key',
      path: '/v1/pets',
      options: () => ({
        requests: [
          {
            method: 'POST',
            headers: { ...AUTH, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Rex', categoryId: 3, status: 'available' }),
            setupRequest: (request) => ({
              ...request,
              headers: { ...request.headers, 'idempotency-key': `"${KEY_PREFIX}-${++keysSent}"` },
            }),
          },
        ],
      }),
    },
  ];
  const wanted = named?.split(',');
  const WORKLOADS =
    wanted === undefined ? all : all.filter((workload) => wanted.some((part) => workload.name.includes(part)));
  const createThroughputWanted = wanted === undefined || wanted.some((part) => CREATE_THROUGHPUT.includes(part));
  const eventsWanted = wanted === undefined || wanted.some((part) => EVENTS.includes(part));
  const ordersWanted = wanted === undefined || wanted.some((part) => ORDERS.includes(part));
  const changesWanted = wanted === undefined || wanted.some((part) => CHANGES.includes(part));
  const replicasWanted = wanted === undefined || wanted.some((part) => REPLICAS.includes(part));
  const besides = [createThroughputWanted, eventsWanted, ordersWanted, changesWanted, replicasWanted];
  if (WORKLOADS.length === 0 && !besides.includes(true)) {
    console.error('bench: --workloads must name at least one workload');
    process.exit(2);
  }
  /** The workloads counted under valgrind with --instructions: all of them, or those --instruction-workloads names. */
  const COUNTED = WORKLOADS.filter(
    (workload) => instructionWorkloads?.split(',').some((part) => workload.name.includes(part)) ?? true,
  );
  if (instructions && COUNTED.length === 0) {
    console.error('bench: --instruction-workloads must name at least one of the workloads measured');
    process.exit(2);
  }
  return {
    WORKLOADS,
    COUNTED,
    GET_WORKLOAD: COUNTED.find((workload) => workload.name === 'get random id'),
    createThroughputWanted,
    eventsWanted,
    ordersWanted,
    changesWanted,
    replicasWanted,
  };
}

export type Workloads = ReturnType<typeof workloadsFor>;
