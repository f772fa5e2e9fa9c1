// npm run contract against broken servers: the real service (in memory) behind a proxy that
// breaks one promise of the contract at a time, and what the runner must say of each
// (test/tooling/contract-runner.test.ts); the service and the runner's options are shared with
// test/tooling/contract-runner-postgres.test.ts.
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { runContract, type ContractOptions } from '#tools/contract';
import type { PetStore } from '../../src/store/pet-store.js';
import { API_KEY, buildTestApp, clockBeforeSunsets } from './build-app.js';
import { faultyProxy, json, withJson, type Exchange, type Fault } from './faulty-proxy.js';

export const ENV = { CONTRACT_API_KEY: API_KEY };
// A generous limit per request: a busy CI machine must not turn a slow response into a false hang.
// 100 cases: the checks of one operation (getPet, which several faults break) must meet it whatever
// operations a spec adds (the README's walkthrough adds replacePet to the nine of openapi.yaml).
export const OPTIONS = ['--seed', '7', '--cases', '100', '--timeout-ms', '5000'];

/** The real service, on a store of its own (in memory unless given). */
export async function service(t: Test, store?: PetStore): Promise<number> {
  const { app } = await buildTestApp(t, { logger: false, ...(store === undefined ? {} : { store }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** A proxy in front of the real service that applies `fault` to every exchange. */
export async function misbehaving(t: Test, fault: Fault, store?: PetStore): Promise<number> {
  return faultyProxy(t, await service(t, store), fault);
}

/** npm run contract in-process; its clock is the one buildTestApp gives services unless told. */
export async function contract(
  args: string[],
  env: NodeJS.ProcessEnv = ENV,
  options: ContractOptions = { clock: clockBeforeSunsets() },
) {
  const lines: string[] = [];
  const status = await runContract(
    args,
    env,
    { log: (line) => lines.push(line), error: (line) => lines.push(line) },
    options,
  );
  return { status, output: lines.join('\n') };
}

// The operations these faults break; any other a spec adds passes through unchanged.
const operationOf = ({ method, url }: Exchange) => {
  const path = url.split('?')[0]!;
  if (method === 'POST' && path === '/v1/pets') return 'createPet';
  if (method !== 'GET') return undefined;
  if (path === '/v1/pets') return 'listPets';
  return /^\/v1\/pets\/[^/?]*$/.test(path) ? 'getPet' : undefined;
};

const otherLast = (name: string) => {
  const points = [...name];
  return [...points.slice(0, -1), points.at(-1) === 'x' ? 'y' : 'x'].join('');
};

export const FAULTS: { name: string; check: RegExp; report: RegExp; fault: Fault; options?: string[] }[] = [
  {
    name: 'an undocumented status',
    check: /^FAIL a valid request is accepted/m,
    // Only listPets' responses break: more cases, so that some meet one however many operations share them.
    options: ['--cases', '300'],
    report: /listPets responded 206, which openapi\.yaml does not document/,
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'listPets' && reply.status === 200 ? { ...reply, status: 206 } : reply,
    },
  },
  {
    name: 'a server error',
    check: /^FAIL a valid request is accepted/m,
    // Only valid reads and removals of pets not there break: more cases, so that some meet one however many operations
    // share them.
    options: ['--cases', '200'],
    report: /server error 500/,
    // Only where a valid request meets a pet that is not there: a random id, or one this run removed.
    fault: {
      response: (exchange, reply) =>
        (operationOf(exchange) === 'getPet' || exchange.method === 'DELETE') && reply.status === 404
          ? withJson({ ...reply, status: 500 }, { code: 'INTERNAL_ERROR', message: 'Oops.', status: 500 })
          : reply,
    },
  },
  {
    name: 'a content type other than the documented one',
    check: /^FAIL a valid request is accepted/m,
    report: /content type is text\/plain/,
    fault: {
      response: (_exchange, reply) => ({ ...reply, headers: { ...reply.headers, 'content-type': 'text/plain' } }),
    },
  },
  {
    name: 'a body outside its schema',
    check: /^FAIL a valid request is accepted/m,
    report: /body does not match openapi\.yaml/,
    // Only createPet's responses break: more cases, so that some meet one however many operations share them.
    options: ['--cases', '200'],
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'createPet' && reply.status === 201
          ? withJson(reply, { ...json(reply), id: String(json(reply).id) })
          : reply,
    },
  },
  {
    name: 'a documented header left out',
    check: /^FAIL a valid request is accepted/m,
    report: /lacks the documented Location header/,
    // Only createPet's responses break: more cases, so that some meet one however many operations share them.
    options: ['--cases', '200'],
    fault: {
      response: (_exchange, { headers: { location: _location, ...headers }, ...reply }) => ({ ...reply, headers }),
    },
  },
  {
    name: 'an Error whose status differs from the HTTP status',
    check: /^FAIL a request that breaks one rule/m,
    report: /the body's status is 422/,
    fault: {
      response: (_exchange, reply) => (reply.status === 400 ? withJson(reply, { ...json(reply), status: 422 }) : reply),
    },
  },
  {
    name: 'a complaint other than 401 to a request without a valid key',
    check: /^FAIL a request without a valid key gets 401/m,
    report: /expected status 401/,
    // Looks at the request before the key, as a server that validates first would.
    fault: {
      request: (exchange) => ({ ...exchange, headers: { ...exchange.headers, authorization: `Bearer ${API_KEY}` } }),
    },
  },
  {
    name: 'a rejection that does not say what to fix',
    check: /^FAIL a request that breaks one rule/m,
    report: /expected the message to mention/,
    fault: {
      response: (_exchange, reply) =>
        reply.status === 400 ? withJson(reply, { ...json(reply), message: 'Bad request.' }) : reply,
    },
  },
  {
    name: 'a broken request accepted',
    check: /^FAIL a request that breaks one rule/m,
    // Only listPets' responses break: more cases, so that some meet one however many operations share them.
    options: ['--cases', '300'],
    report: /expected status 400/,
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'listPets' && reply.status === 400 ? withJson({ ...reply, status: 200 }, []) : reply,
    },
  },
  {
    name: 'a valid request refused',
    check: /^FAIL a valid request is accepted/m,
    report: /expected a 2xx: a valid request must be accepted/,
    // Only createPet's responses break: more cases, so that some meet one however many operations share them.
    options: ['--cases', '200'],
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'createPet' && reply.status === 201
          ? withJson(
              { ...reply, status: 400 },
              { code: 'VALIDATION_FAILED', message: 'body.name is not allowed', status: 400 },
            )
          : reply,
    },
  },
  {
    name: 'a pet that reads back changed',
    check: /^FAIL what a create answered reads back equal/m,
    report: /read at its Location/,
    // The name's last character changed, its length kept: still a valid Pet, only not the one created.
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'getPet' && reply.status === 200
          ? withJson(reply, { ...json(reply), name: otherLast(json(reply).name as string) })
          : reply,
    },
  },
  {
    name: 'a created pet missing from the pages',
    check: /^FAIL what a create answered reads back equal/m,
    report: /created pets never listed/,
    // Only on the full pages the read-back walks: the pages of generated lists stay whole.
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'listPets' && exchange.url.includes('limit=100') && reply.status === 200
          ? withJson(
              reply,
              (json(reply) as { id: number }[]).filter((pet) => Number(pet.id) % 2 === 1),
            )
          : reply,
    },
  },
  {
    name: 'an Idempotency-Key that is ignored',
    check: /^FAIL a create with an Idempotency-Key is made once/m,
    report: /expected a 201 replay \(Idempotent-Replayed: true\)/,
    fault: {
      request: (exchange) => {
        const { 'idempotency-key': _key, ...headers } = exchange.headers;
        return { ...exchange, headers };
      },
    },
  },
  {
    name: 'every pet missing when read',
    // Only getPet's linked reads break: the generated cases meet one, or the coverage of every
    // operation does, depending on how many operations share the cases (a spec with one more has fewer).
    check: /^FAIL (a valid request is accepted|every operation answered a valid request with a 2xx)/m,
    report: /expected a 2xx: a valid request naming what this run created \(by a link of the spec\) must be accepted/,
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'getPet' && reply.status === 200
          ? withJson(
              { ...reply, status: 404 },
              { code: 'PET_NOT_FOUND', message: `No pet ${exchange.url.split('/').at(-1)!}.`, status: 404 },
            )
          : reply,
    },
  },
  {
    name: 'a next link that changes the limit',
    check: /^FAIL a valid request is accepted/m,
    // Only listPets' responses break: more cases, so that some meet one however many operations share them.
    options: ['--cases', '300'],
    report:
      /the next link <[^>]*>; rel="next" does not keep the path, limit \d+ and status[^\n]*\n\s*a next link after a page of \d+ pets, fewer than the limit/,
    // On every page, due or not, in the documented form: the limit asked for, plus one.
    fault: {
      response: (exchange, reply) => {
        if (operationOf(exchange) !== 'listPets' || reply.status !== 200) return reply;
        const limit = Number(new URL(exchange.url, 'http://x').searchParams.get('limit') ?? 20);
        return {
          ...reply,
          headers: { ...reply.headers, link: `</v1/pets?limit=${limit + 1}&cursor=AAAA>; rel="next"` },
        };
      },
    },
  },
  {
    name: 'a pet listed other than it was created',
    check: /^FAIL what a create answered reads back equal/m,
    report: /pet \d+ is listed as .*, but was created as /,
    // On the full pages the read-back walks: its name's last character changed, its length kept.
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'listPets' && exchange.url.includes('limit=100') && reply.status === 200
          ? withJson(
              reply,
              (json(reply) as { name: string }[]).map((pet) => ({ ...pet, name: otherLast(pet.name) })),
            )
          : reply,
    },
  },
  {
    name: 'a 429 without its documented RateLimit fields',
    // Only getPet's linked reads break: the generated cases meet one, or the coverage of every
    // operation does, depending on how many operations share the cases.
    check: /^FAIL (a valid request is accepted|every operation answered a valid request with a 2xx)/m,
    options: ['--cases', '200'],
    report: /→ 429 .*\n.*getPet 429 lacks the documented RateLimit-Policy header/,
    // Retry-After 0: the runner's ten retries take no time.
    fault: {
      response: (exchange, reply) =>
        operationOf(exchange) === 'getPet' && reply.status === 200
          ? withJson(
              { ...reply, status: 429, headers: { ...reply.headers, 'retry-after': '0' } },
              { code: 'TOO_MANY_REQUESTS', message: 'Too many requests.', status: 429 },
            )
          : reply,
    },
  },
  {
    name: 'a hang',
    check: /^FAIL a valid request is accepted/m,
    report: /no response within 300 ms/,
    // Only getPet's requests hang: more cases, so that some meet one however many operations share them.
    options: ['--timeout-ms', '300', '--cases', '300'],
    fault: { response: (exchange, reply) => (operationOf(exchange) === 'getPet' ? 'hang' : reply) },
  },
  {
    // A feed built on a sequence, reading past a transaction that commits late: some creations never show.
    name: 'a change feed that skips events',
    check: /^FAIL every create of this run is in the change feed once/m,
    report: /the feed has 0 pet\.created events for it/,
    fault: {
      response: (exchange, reply) =>
        exchange.url.startsWith('/v1/pet-events') && reply.status === 200
          ? withJson(
              reply,
              (json(reply) as { type: string; petId: unknown }[]).filter(
                (event) => !(event.type === 'pet.created' && BigInt(String(event.petId)) % 2n === 0n),
              ),
            )
          : reply,
    },
  },
];

/** Runs every fault against the service in memory. */
export function faultTests(t: Test) {
  for (const { name, check, report, fault, options = [] } of FAULTS) {
    t.test(`a server with ${name}: exit 1, and the report names it`, async (t) => {
      const port = await misbehaving(t, fault);
      const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS, ...options]);
      t.equal(status, 1, 'exit 1');
      t.match(output, check, 'the check it breaks fails');
      t.match(output, report, 'the report says what was wrong');
      t.match(output, /seed 7/, 'the seed, to repeat the run');
      t.notMatch(output, API_KEY, 'the key is never printed');
    });
  }
}
