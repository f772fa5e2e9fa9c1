// npm run contract proves what it claims: against the real service it exits 0; behind a proxy that
// breaks one promise of the contract at a time, it exits 1 and names that promise; when it cannot
// run it exits 2. The runner is called in-process (scripts/contract/run-contract.ts); the service
// and the proxies listen on 127.0.0.1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runContract } from '../scripts/contract/run-contract.js';
import { exitStatusOf } from '../scripts/contract/run-checks.js';
import { createMemoryPetStore } from '../src/store/memory-pet-store.js';
import type { PetStore } from '../src/store/pet-store.js';
import { API_KEY, buildTestApp } from './helpers/build-app.js';
import { faultyProxy, json, withJson, type Exchange, type Fault } from './helpers/faulty-proxy.js';
import { operations } from './helpers/contract.js';
import { specWith } from './helpers/spec.js';
import type { OpenApiDocument } from '../src/spec/openapi-spec.js';
import { startTestDatabase, whyNoPostgres } from './helpers/postgres.js';

const ENV = { CONTRACT_API_KEY: API_KEY };
// Each run is a few hundred requests; the hang fixture waits out its time limit on every shrink.
t.setTimeout(120_000);
// A generous limit per request: a busy CI machine must not turn a slow answer into a false hang.
const OPTIONS = ['--seed', '7', '--cases', '60', '--timeout-ms', '5000'];

/** The real service, on a store of its own (in memory unless given). */
async function service(t: Test, store?: PetStore): Promise<number> {
  const { app } = await buildTestApp(t, { logger: false, ...(store === undefined ? {} : { store }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** A proxy in front of the real service that applies `fault` to every exchange. */
async function misbehaving(t: Test, fault: Fault, store?: PetStore): Promise<number> {
  return faultyProxy(t, await service(t, store), fault);
}

async function contract(args: string[], env: NodeJS.ProcessEnv = ENV) {
  const lines: string[] = [];
  const status = await runContract(args, env, { log: (line) => lines.push(line), error: (line) => lines.push(line) });
  return { status, output: lines.join('\n') };
}

// The operations these faults break; any other a spec adds passes through unchanged.
const operationOf = ({ method, url }: Exchange) =>
  method === 'POST' && url.split('?')[0] === '/v1/pets' ? 'createPet' : method !== 'GET' ? undefined : /^\/v1\/pets\/[^/?]*$/.test(url.split('?')[0]!) ? 'getPet' : 'listPets';

const otherLast = (name: string) => {
  const points = [...name];
  return [...points.slice(0, -1), points.at(-1) === 'x' ? 'y' : 'x'].join('');
};

const FAULTS: { name: string; check: RegExp; report: RegExp; fault: Fault; options?: string[] }[] = [
  {
    name: 'an undocumented status',
    check: /^FAIL a valid request is accepted/m,
    report: /listPets answered 206, which openapi\.yaml does not document/,
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'listPets' && reply.status === 200 ? { ...reply, status: 206 } : reply) },
  },
  {
    name: 'a server error',
    check: /^FAIL a valid request is accepted/m,
    report: /server error 500/,
    // Only where a valid request meets a pet that is not there: a random id.
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'getPet' && reply.status === 404 ? withJson({ ...reply, status: 500 }, { code: 'INTERNAL_ERROR', message: 'Oops.', status: 500 }) : reply) },
  },
  {
    name: 'a content type other than the documented one',
    check: /^FAIL a valid request is accepted/m,
    report: /content type is text\/plain/,
    fault: { answer: (_exchange, reply) => ({ ...reply, headers: { ...reply.headers, 'content-type': 'text/plain' } }) },
  },
  {
    name: 'a body outside its schema',
    check: /^FAIL a valid request is accepted/m,
    report: /body does not match openapi\.yaml/,
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'createPet' && reply.status === 201 ? withJson(reply, { ...json(reply), id: String(json(reply).id) }) : reply) },
  },
  {
    name: 'a documented header left out',
    check: /^FAIL a valid request is accepted/m,
    report: /lacks the documented Location header/,
    fault: { answer: (_exchange, { headers: { location: _location, ...headers }, ...reply }) => ({ ...reply, headers }) },
  },
  {
    name: 'an Error whose status differs from the HTTP status',
    check: /^FAIL a request that breaks one rule/m,
    report: /Error\.status is 422/,
    fault: { answer: (_exchange, reply) => (reply.status === 400 ? withJson(reply, { ...json(reply), status: 422 }) : reply) },
  },
  {
    name: 'a complaint other than 401 to a request without a valid key',
    check: /^FAIL a request without a valid key gets 401/m,
    report: /expected status 401/,
    // Looks at the request before the key, as a server that validates first would.
    fault: { request: (exchange) => ({ ...exchange, headers: { ...exchange.headers, authorization: `Bearer ${API_KEY}` } }) },
  },
  {
    name: 'a refusal that does not say what to fix',
    check: /^FAIL a request that breaks one rule/m,
    report: /expected the message to mention/,
    fault: { answer: (_exchange, reply) => (reply.status === 400 ? withJson(reply, { ...json(reply), message: 'Bad request.' }) : reply) },
  },
  {
    name: 'a broken request accepted',
    check: /^FAIL a request that breaks one rule/m,
    report: /expected status 400/,
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'listPets' && reply.status === 400 ? withJson({ ...reply, status: 200 }, []) : reply) },
  },
  {
    name: 'a valid request refused',
    check: /^FAIL a valid request is accepted/m,
    report: /expected a 2xx: a valid request must be accepted/,
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'createPet' && reply.status === 201 ? withJson({ ...reply, status: 400 }, { code: 'VALIDATION_FAILED', message: 'body.name is not allowed', status: 400 }) : reply) },
  },
  {
    name: 'a pet that reads back changed',
    check: /^FAIL what a create answered reads back equal/m,
    report: /read at its Location/,
    // The name's last character changed, its length kept: still a valid Pet, only not the one created.
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'getPet' && reply.status === 200 ? withJson(reply, { ...json(reply), name: otherLast(json(reply).name as string) }) : reply) },
  },
  {
    name: 'a created pet missing from the pages',
    check: /^FAIL what a create answered reads back equal/m,
    report: /created pets never listed/,
    // Only on the full pages the read-back walks: the pages of generated lists stay whole.
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'listPets' && exchange.url.includes('limit=100') && reply.status === 200 ? withJson(reply, (json(reply) as { id: number }[]).filter((pet) => Number(pet.id) % 2 === 1)) : reply) },
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
    check: /^FAIL a valid request is accepted/m,
    report: /expected a 2xx: a valid request naming what this run created \(by a link of the spec\) must be accepted/,
    fault: {
      answer: (exchange, reply) =>
        operationOf(exchange) === 'getPet' && reply.status === 200 ? withJson({ ...reply, status: 404 }, { code: 'PET_NOT_FOUND', message: `No pet ${exchange.url.split('/').at(-1)!}.`, status: 404 }) : reply,
    },
  },
  {
    name: 'a hang',
    check: /^FAIL a valid request is accepted/m,
    report: /no answer within 300 ms/,
    options: ['--timeout-ms', '300'],
    fault: { answer: (exchange, reply) => (operationOf(exchange) === 'getPet' ? 'hang' : reply) },
  },
];

t.test('against the real service every check holds: exit 0', async (t) => {
  const port = await service(t);
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS, '--report', `junit=${join(dir, 'junit.xml')}`]);
  t.equal(status, 0, output);
  for (const check of ['a valid request is accepted', 'a create with an Idempotency-Key is made once', 'a request that breaks one rule', 'a request without a valid key gets 401', 'every operation answered a valid request with a 2xx', 'what a create answered reads back equal']) {
    t.match(output, new RegExp(`^ok {3}${check}`, 'm'), `one line for: ${check}`);
  }
  // One line per operation of the spec, each with valid requests answered 2xx.
  for (const { operationId, method, path } of operations) {
    t.match(output, new RegExp(`^  ${method.toUpperCase()} ${path.replace(/[{}]/g, '\\$&')} +${operationId} +\\d+ sent +\\d+ valid +[1-9]\\d* answered 2xx$`, 'm'), `counts for ${operationId}`);
  }
  t.match(output, /summary: every check holds; seed 7; \d+ requests; [\d.]+ s; [1-9]\d* pets created, named "contract-check [0-9a-f]{8} …"/);
  t.match(readFileSync(join(dir, 'junit.xml'), 'utf8'), /<testsuites name="npm run contract" tests="6" failures="0"/, 'the JUnit report');
});

const database = await startTestDatabase(t);
// Each broken server is the real service, on either store, behind the proxy that breaks it.
const STORES: [string, (t: Test) => Promise<PetStore | undefined>, string | boolean][] = [
  ['in-memory store', async () => undefined, false],
  ['PostgreSQL store', (t) => database!.createStore(t), database === undefined ? (whyNoPostgres() ?? true) : false],
];
for (const [storeName, store, skip] of STORES) {
  t.test(`on the ${storeName}`, { skip }, async (t) => {
    for (const { name, check, report, fault, options = [] } of FAULTS) {
      t.test(`a server with ${name}: exit 1, and the report names it`, async (t) => {
        const port = await misbehaving(t, fault, await store(t));
        const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS, ...options]);
        t.equal(status, 1, 'exit 1');
        t.match(output, check, 'the check it breaks fails');
        t.match(output, report, 'the report says what was wrong');
        t.match(output, /seed 7/, 'the seed, to repeat the run');
        t.notMatch(output, API_KEY, 'the key is never printed');
      });
    }
  });
}

t.test('a failure report has the shrunk case, and a curl line that repeats it with the key from the environment', async (t) => {
  const port = await misbehaving(t, FAULTS.find((entry) => entry.name === 'a refusal that does not say what to fix')!.fault);
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS, '--report', `junit=${join(dir, 'junit.xml')}`]);
  t.match(output, /Counterexample: \[/, 'the counterexample');
  t.match(output, /Shrunk \d+ time/, 'shrunk');
  t.match(output, new RegExp(`reproduce: curl -i --globoff -X \\w+ 'http://127\\.0\\.0\\.1:${port}/v1/pets[^']*'.* -H "authorization: Bearer \\$\\{CONTRACT_API_KEY\\}"`), 'curl, with the key left in the environment');
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  t.match(junit, /failures="1"/);
  t.match(junit, /<failure message="[^"]+">/, 'the failure in the JUnit report');
});

t.test('a target that rate-limits is waited on, never counted as a violation', async (t) => {
  let count = 0;
  const port = await misbehaving(t, {
    answer: (_exchange, reply) => (++count % 4 === 0 ? withJson({ ...reply, status: 429, headers: { ...reply.headers, 'retry-after': '0' } }, { code: 'RATE_LIMITED', message: 'Slow down.', status: 429 }) : reply),
  });
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS]);
  t.equal(status, 0, output);
  t.match(output, /\(\d+ answered 429 and retried after Retry-After\)/);
});

t.test('--read-only creates nothing', async (t) => {
  // A deployment read-only runs against holds data: getPet reads the pets listPets answers (its link FirstPet).
  const store = createMemoryPetStore();
  for (let index = 0; index < 3; index++) await store.create({ name: `pet ${index}`, categoryId: 1 });
  const created: string[] = [];
  const port = await misbehaving(t, { request: (exchange) => (exchange.method === 'POST' && created.push(exchange.url), exchange) }, store);
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS, '--read-only']);
  t.equal(status, 0, output);
  t.same(created, [], 'no POST reached the target');
  t.match(output, /0 pets created/);
  t.notMatch(output, /POST \/pets/, 'createPet is not counted: it is not sent');

  const empty = await contract(['--url', `http://127.0.0.1:${await service(t)}/v1`, ...OPTIONS, '--read-only']);
  t.equal(empty.status, 1, 'on a deployment without pets, getPet gets no 2xx: that fails, and says why');
  t.match(empty.output, /getPet \(GET \/pets\/\{petId\}\): none of its \d+ valid requests got a 2xx \(404 ×\d+\); .*read-only: it creates nothing, so the target must hold data/);
});

t.test('when it cannot run: exit 2, saying why', async (t) => {
  const port = await service(t);
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const specFile = (name: string, change: (spec: OpenApiDocument) => void) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(specWith(change)));
    return file;
  };
  const noOperations = specFile('empty.json', (spec) => void (spec.paths = {}));
  const badLink = specFile('bad-link.json', (spec) => Object.assign((spec.paths['/pets']!.post!.responses['201'] as { links: Record<string, unknown> }).links, { Gone: { operationId: 'readPet', parameters: { petId: '$response.body#/id' } } }));
  const cases: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
    ['a spec that is not there', ['--url', `http://127.0.0.1:${port}/v1`, '--spec', join(dir, 'missing.yaml')], ENV, /--spec .*missing\.yaml: ENOENT/],
    ['a spec without operations', ['--url', `http://127.0.0.1:${port}/v1`, '--spec', noOperations], ENV, /empty\.json defines no operation/],
    ['a spec whose link leads nowhere', ['--url', `http://127.0.0.1:${port}/v1`, '--spec', badLink], ENV, /bad-link\.json: createPet 201 link Gone: no operation readPet \(npm run lint:spec says more\)/],
    ['no URL', [], ENV, /--url is required/],
    ['a URL without the base path', ['--url', `http://127.0.0.1:${port}/`], ENV, /must be an http\(s\) URL whose path ends in \/v1/],
    ['no key', ['--url', `http://127.0.0.1:${port}/v1`], {}, /no API key: set CONTRACT_API_KEY, or give --key-file/],
    ['a key file that is not there', ['--url', `http://127.0.0.1:${port}/v1`, '--key-file', '/nonexistent/key'], {}, /cannot read --key-file/],
    ['a refused key', ['--url', `http://127.0.0.1:${port}/v1`], { CONTRACT_API_KEY: 'not-the-key-0123456789' }, /refused the API key \(401\)/],
    ['an unknown option', ['--url', `http://127.0.0.1:${port}/v1`, '--fast'], ENV, /Unknown option '--fast'/],
    ['a URL that is not one', ['--url', 'not a url'], ENV, /--url not a url is not a URL/],
    ['a bad count', ['--url', `http://127.0.0.1:${port}/v1`, '--cases', '0'], ENV, /--cases must be an integer of at least 1/],
    ['a bad report', ['--url', `http://127.0.0.1:${port}/v1`, '--report', 'html=x'], ENV, /--report must be junit=<file>/],
  ];
  for (const [what, args, env, reason] of cases) {
    const { status, output } = await contract(args, env);
    t.equal(status, 2, `${what}: exit 2`);
    t.match(output, reason, `${what}: says why`);
  }
  // A port that was just free, and is closed again: nothing answers there.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const unreachable = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  const { status, output } = await contract(['--url', `http://127.0.0.1:${unreachable}/v1`]);
  t.equal(status, 2, 'an unreachable target: exit 2');
  t.match(output, /cannot reach the target/);
});

t.test('a fault of the runner itself is not taken for "cannot run": it is thrown, as a bug', async (t) => {
  const printed: string[] = [];
  const output = { log: (line: string) => void printed.push(line), error: (line: string) => void printed.push(line) };
  await t.rejects(exitStatusOf('npm run contract', output, () => Promise.reject(new TypeError('a bug'))), TypeError);
  t.same(printed, []);
});

t.test('--help says what each option does', async (t) => {
  const { status, output } = await contract(['--help']);
  t.equal(status, 0);
  for (const option of ['--url', '--key-file', '--spec', '--seed', '--cases', '--timeout-ms', '--read-only', '--max-pages', '--report']) t.match(output, option);
});

t.test('--max-pages bounds the walks over a large store, and the report says so', async (t) => {
  const store = createMemoryPetStore();
  for (let index = 0; index < 150; index++) await store.create({ name: `pet ${index}`, categoryId: 1 });
  const port = await service(t, store);
  // 13 cases: a count the checks do not divide evenly, so some run one case more.
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, '--cases', '13', '--seed', '3', '--max-pages', '1'], ENV);
  t.equal(status, 0, output);
  t.match(output, /listPets' pages were read up to 1 pages a walk \(--max-pages\); pets beyond were read through getPet only/);
});

t.test('a key file is read, and its key never printed', async (t) => {
  const port = await service(t);
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'key');
  writeFileSync(file, `${API_KEY}\n`);
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, '--key-file', file, '--cases', '12', '--seed', '3']);
  t.equal(status, 0, output);
  t.notMatch(output, API_KEY);
});

t.test('two instances on one PostgreSQL database, in turn: every check holds, reading back across instances', { skip: database === undefined ? (whyNoPostgres() ?? true) : false }, async (t) => {
  const url = await database!.freshSchema();
  const ports = [await service(t, await database!.openStore(t, url)), await service(t, await database!.openStore(t, url))];
  const { status, output } = await contract([...ports.flatMap((port) => ['--url', `http://127.0.0.1:${port}/v1`]), ...OPTIONS]);
  t.equal(status, 0, output);
  t.match(output, /^ok {3}what a create answered reads back equal/m);
});
