// npm run contract proves what it claims: against the real service it exits 0; behind a proxy that
// breaks one promise of the contract at a time, it exits 1 and names that promise (the broken
// servers: test/helpers/contract-faults.ts); when it cannot run it exits 2. The runner is called
// in-process (scripts/contract/run-contract.ts); the service and the proxies listen on 127.0.0.1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { exitStatusOf } from '#tools/contract';
import type { OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { allRoles, API_KEY, buildTestApp, NO_ROLE_API_KEY, TEST_ENDPOINT } from '../helpers/build-app.js';
import { unnamedClientOf } from '../../src/auth/api-clients.js';
import { contract, ENV, FAULTS, faultTests, misbehaving, OPTIONS, service } from '../helpers/contract-faults.js';
import { operations, spec } from '../helpers/contract.js';
import { keyTableOf } from '../../src/auth/key-table.js';
import { requiredRolesOf, rolesOf } from '../../src/auth/roles.js';
import { faultyProxy, withJson } from '../helpers/faulty-proxy.js';
import { specWith } from '../helpers/spec.js';

// Each run is a few hundred requests; the hang fixture waits out its time limit on every shrink. Over
// twenty operations since 1.7.0, the file takes two minutes or more on two busy cores.
t.setTimeout(240_000);

t.test('against the real service every check holds: exit 0', async (t) => {
  const port = await service(t);
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { status, output } = await contract([
    '--url',
    `http://127.0.0.1:${port}/v1`,
    ...OPTIONS,
    '--report',
    `junit=${join(dir, 'junit.xml')}`,
  ]);
  t.equal(status, 0, output);
  for (const check of [
    'a valid request is accepted',
    'a create with an Idempotency-Key is made once',
    'a request that breaks one rule',
    'a request without a valid key gets 401',
    'every operation answered a valid request with a 2xx',
    'what a create answered reads back equal',
  ]) {
    t.match(output, new RegExp(`^ok {3}${check}`, 'm'), `one line for: ${check}`);
  }
  // One line per operation of the spec, each with valid requests given 2xx; but resendWebhookEvent and
  // setWebhookPosition, writes only reads (listWebhookDeliveries, listWebhookEndpoints) link to, which a
  // run never sends to what it did not create.
  t.match(
    output,
    /^ok {3}every operation answered a valid request with a 2xx, but for resendWebhookEvent \(POST \/webhook-endpoints\/\{endpointId\}\/resend\): only reads \(listWebhookDeliveries\) link to it, and a run writes only to what it created; setWebhookPosition \(POST \/webhook-endpoints\/\{endpointId\}\/position\): only reads \(listWebhookEndpoints\) link to it, and a run writes only to what it created$/m,
  );
  for (const { operationId, method, path } of operations) {
    const responded = ['setWebhookPosition', 'resendWebhookEvent'].includes(operationId) ? '0' : '[1-9]\\d*';
    t.match(
      output,
      new RegExp(
        `^  ${method.toUpperCase()} ${path.replace(/[{}]/g, '\\$&')} +${operationId} +\\d+ sent +\\d+ valid +${responded} answered 2xx$`,
        'm',
      ),
      `counts for ${operationId}`,
    );
  }
  t.match(
    output,
    /summary: every check holds; seed 7; \d+ requests; [\d.]+ s; [1-9]\d* writes answered 2xx, names beginning "contract-check [0-9a-f]{8} "/,
  );
  t.match(
    output,
    /^ok {3}every create of this run is in the change feed once, as answered, each pet's versions without a gap \[pet-store\]$/m,
    'the feed holds what the run created',
  );
  t.match(
    readFileSync(join(dir, 'junit.xml'), 'utf8'),
    /<testsuites name="npm run contract" tests="8" failures="0"/,
    'the JUnit report',
  );
  // It wrote only to the webhook endpoints it created, and removed them: the file's one is as it was.
  t.match(output, /^ok {3}what the run created is removed where the document says how: [1-9]\d* deleted$/m);
  const listed = await fetch(`http://127.0.0.1:${port}/v1/webhook-endpoints`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  t.same(
    ((await listed.json()) as { id: string; source: string; state: string; after: string }[]).map(
      ({ id, source, state }) => ({ id, source, state }),
    ),
    [{ id: TEST_ENDPOINT, source: 'file', state: 'active' }],
    'after the run, no endpoint of the API is left, and the file one untouched',
  );
});

t.test('without the Pet Store plug-in, every generic check still runs and holds: exit 0', async (t) => {
  const port = await service(t);
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS, '--without-plugin']);
  t.equal(status, 0, output);
  for (const check of [
    'a valid request is accepted',
    'a request that breaks one rule',
    'a request without a valid key gets 401',
    'every operation answered a valid request with a 2xx',
  ]) {
    t.match(output, new RegExp(`^ok {3}${check}`, 'm'), `the generic check: ${check}`);
  }
  t.notMatch(output, /\[pet-store\]/, "none of the plug-in's checks");
  t.match(output, /summary: every check holds; .* [1-9]\d* writes answered 2xx/);
});

t.test(
  'an operation past the sunset its spec announces may answer the documented 410; one that answers 410 before it fails the run',
  async (t) => {
    // Dates far from any real "now", so that neither outcome depends on the day the test runs.
    const sunsetAt = (sunset: string) =>
      specWith((spec) =>
        Object.assign(spec.paths['/pets/{petId}']!.get!, { 'x-deprecated-at': '1999-01-01', 'x-sunset': sunset }),
      );
    const { app } = await buildTestApp(t, { logger: false, spec: sunsetAt('2000-01-01'), clock: Date.now });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
    const dir = t.testdir({
      'retired.json': JSON.stringify(sunsetAt('2000-01-01')),
      'kept.json': JSON.stringify(sunsetAt('9999-12-31')),
    });

    // More cases than the others: getPet is one of many operations, and must meet some valid requests.
    const retired = await contract(
      ['--url', url, '--spec', join(dir, 'retired.json'), ...OPTIONS, '--cases', '300'],
      ENV,
      { clock: Date.now },
    );
    t.equal(retired.status, 0, retired.status === 0 ? 'exit 0' : retired.output);
    t.match(
      retired.output,
      /^ {2}GET \/pets\/\{petId\} +getPet +\d+ sent +[1-9]\d* valid +0 answered 2xx$/m,
      'getPet sent, answered 410, not held to a 2xx',
    );

    const kept = await contract(['--url', url, '--spec', join(dir, 'kept.json'), ...OPTIONS], ENV, { clock: Date.now });
    // Its report, on a run that fails, holds the generated requests: not a message for a passing assertion.
    t.equal(kept.status, 1, kept.status === 1 ? 'exit 1' : kept.output);
    t.match(
      kept.output,
      /^GET \/v1\/pets\/\S+ → 410 \{"code":"OPERATION_GONE".*\n {2}expected a 2xx: a valid request/m,
      'names the 410 a valid request got',
    );
  },
);

t.test(
  'against a deployment that limits it, the runner accepts the documented 429, waits and goes on: a limit never fails a run',
  async (t) => {
    const table = keyTableOf([allRoles(API_KEY)], rolesOf(spec), {
      default: { requests: 40, windowSeconds: 1 },
      clients: new Map(),
    });
    const { app } = await buildTestApp(t, { logger: false, apiKeys: { table } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { status, output } = await contract([
      '--url',
      `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`,
      ...OPTIONS,
    ]);
    t.equal(status, 0, output);
    t.match(
      output,
      /^429 TOO_MANY_REQUESTS \(the deployment's limit: each waited for Retry-After and sent again, never a violation\): [A-Za-z]+ [1-9]/m,
      'the 429s, per operation',
    );
    t.match(
      output,
      /summary: every check holds; seed 7; \d+ requests \([1-9]\d* answered 429 and retried after Retry-After\)/,
    );
  },
);

t.test(
  "with another client's key, none of the run's owned objects is reached or listed; a leak is caught",
  async (t) => {
    const KIOSK = 'kiosk-key-0123456789abcdefghij';
    const serve = async (spec?: OpenApiDocument) => {
      const { app } = await buildTestApp(t, {
        logger: false,
        ...(spec === undefined ? {} : { spec }),
        apiKeys: [allRoles(API_KEY), { client: 'kiosk', key: KIOSK }],
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
    };
    const url = await serve();
    const unchecked = await contract(['--url', url, ...OPTIONS]);
    t.equal(unchecked.status, 0, unchecked.output);
    t.match(
      unchecked.output,
      /^ownership \(Order\): not checked: give a key of another client in CONTRACT_OTHER_API_KEY or --other-key-file$/m,
    );
    const dir = t.testdir({ 'kiosk.key': `${KIOSK}\n` });
    const checked = await contract(['--url', url, ...OPTIONS, '--other-key-file', join(dir, 'kiosk.key')]);
    t.equal(checked.status, 0, checked.output);
    t.match(checked.output, /^ownership \(Order\), with another client's key:$/m);
    for (const operationId of ['getOrder', 'cancelOrder', 'listOrders'])
      t.match(
        checked.output,
        new RegExp(`^ {2}ok {3}${operationId}: none of [1-9]\\d* of the run's objects reached$`, 'm'),
      );
    t.match(checked.output, /^ {2}-- {3}completeOrder: not checked, the other key lacks its role \(403\)$/m);
    t.notMatch(checked.output, KIOSK, 'the other key is never printed');

    // A document the run can make no order from: the list is reported not checked, not passed.
    const orderless = join(dir, 'orderless.json');
    writeFileSync(
      orderless,
      JSON.stringify(
        specWith((spec) => {
          delete spec.paths['/store/orders']!.post;
          delete spec.paths['/store/orders/{orderId}/cancel'];
          delete spec.paths['/store/orders/{orderId}/complete'];
          const created = spec.paths['/pets']!.post!.responses['201'] as { links: Record<string, unknown> };
          delete created.links['PlaceOrderForPet'];
        }),
      ),
    );
    // A service of its own, which holds no order.
    const unreached = await contract([
      '--url',
      await serve(),
      ...OPTIONS,
      '--spec',
      orderless,
      '--other-key-file',
      join(dir, 'kiosk.key'),
    ]);
    t.equal(unreached.status, 0, unreached.output);
    t.match(unreached.output, /^ {2}-- {3}listOrders: not checked, the run made no object it names$/m);

    // The negative control: a service that does not check owners (its spec marks no object owned).
    const leaky = await serve(
      specWith((spec) => delete (spec.components.schemas['Order'] as Record<string, unknown>)['x-owner']),
    );
    const caught = await contract(['--url', leaky, ...OPTIONS], { ...ENV, CONTRACT_OTHER_API_KEY: KIOSK });
    t.equal(caught.status, 1, 'the leak fails the run');
    t.match(caught.output, /^ {2}FAIL getOrder: GET \/v1\/store\/orders\/\d+ .*with another client's key → 200/m);
    t.match(caught.output, /^ {2}FAIL listOrders: .*lists an object of the run's client \(id \d+\)$/m);
  },
);

t.test(
  'with a second key lacking a role, the 403 of every operation needing one is checked; without, the run says it was not',
  async (t) => {
    const READER = 'reader-key-0123456789abcdefghij';
    const { app } = await buildTestApp(t, {
      logger: false,
      apiKeys: [
        allRoles(API_KEY),
        { client: 'none', key: NO_ROLE_API_KEY, roles: [] },
        { client: 'reader', key: READER, roles: ['pets:read'] },
      ],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/v1`;

    const unchecked = await contract(['--url', url, ...OPTIONS]);
    t.equal(unchecked.status, 0, unchecked.output);
    // The operations whose security requirement names roles, and their roles: read from the spec.
    const needing = operations
      .map((operation) => [operation.operationId, requiredRolesOf(operation, spec)] as const)
      .filter(([, roles]) => roles.length > 0);
    t.ok(needing.length > 0, 'openapi.yaml names roles');
    t.ok(
      unchecked.output
        .split('\n')
        .includes(
          `403 insufficient_scope: not checked (${needing.map(([operationId]) => operationId).join(', ')} need roles): give a key lacking a role in CONTRACT_LIMITED_API_KEY or --limited-key-file`,
        ),
      'it says which operations it did not check',
    );

    const none = await contract(['--url', url, ...OPTIONS], { ...ENV, CONTRACT_LIMITED_API_KEY: NO_ROLE_API_KEY });
    t.equal(none.status, 0, none.output);
    for (const [operationId, roles] of needing) {
      t.ok(
        none.output.split('\n').includes(`  ok   ${operationId} (needs ${roles.join(', ')}): the documented 403`),
        `${operationId} checked`,
      );
    }
    t.notMatch(none.output, NO_ROLE_API_KEY, 'the limited key is never printed');

    const dir = t.testdir({ 'reader.key': `${READER}\n` });
    const reader = await contract(['--url', url, ...OPTIONS, '--limited-key-file', join(dir, 'reader.key')]);
    t.equal(reader.status, 0, reader.output);
    t.match(reader.output, /^ {2}ok {3}createPet \(needs pets:write\): the documented 403$/m);
    t.match(
      reader.output,
      /^ {2}-- {3}listPets \(needs pets:read\): not checked, the limited key has pets:read \(answered 200\)$/m,
    );
    t.match(
      reader.output,
      /^ {2}-- {3}getPet \(needs pets:read\): not checked, the limited key has pets:read \(answered (200|404)\)$/m,
    );

    // A server whose 403 names no scope in its challenge is caught (by the header's documented pattern).
    const broken = await faultyProxy(t, port, {
      response: (_exchange, reply) =>
        reply.status === 403
          ? { ...reply, headers: { ...reply.headers, 'www-authenticate': 'Bearer realm="petstore"' } }
          : reply,
    });
    const caught = await contract(['--url', `http://127.0.0.1:${broken}/v1`, ...OPTIONS], {
      ...ENV,
      CONTRACT_LIMITED_API_KEY: NO_ROLE_API_KEY,
    });
    t.equal(caught.status, 1, 'exit 1');
    t.match(caught.output, /^ {2}FAIL createPet \(needs pets:write\): POST \/v1\/pets → 403 .*\n.*WWW-Authenticate/m);
    t.match(
      caught.output,
      new RegExp(`summary: ${needing.length} of \\d+ checks violated`),
      'each operation needing a role',
    );

    // One whose challenge is well formed but names another role than the operation needs.
    const misnamed = await faultyProxy(t, port, {
      response: (_exchange, reply) =>
        reply.status === 403
          ? {
              ...reply,
              headers: {
                ...reply.headers,
                'www-authenticate': String(reply.headers['www-authenticate']).replace(
                  /scope="[^"]*"/,
                  'scope="pets:other"',
                ),
              },
            }
          : reply,
    });
    const named = await contract(['--url', `http://127.0.0.1:${misnamed}/v1`, ...OPTIONS], {
      ...ENV,
      CONTRACT_LIMITED_API_KEY: NO_ROLE_API_KEY,
    });
    t.equal(named.status, 1, 'exit 1');
    t.match(
      named.output,
      /^ {2}FAIL createPet \(needs pets:write\): POST \/v1\/pets .*: 403 without a challenge naming scope="pets:write" \(got "Bearer [^\n]*scope=\\"pets:other\\""\)$/m,
    );

    // --read-only sends nothing that could write: the 403 of createPet is left unchecked, the others checked.
    const readOnly = await contract(['--url', url, ...OPTIONS, '--read-only'], {
      ...ENV,
      CONTRACT_LIMITED_API_KEY: NO_ROLE_API_KEY,
    });
    t.notMatch(readOnly.output, /createPet \(needs/, 'createPet is not sent');
    t.match(readOnly.output, /^ {2}ok {3}listPets \(needs pets:read\): the documented 403$/m);
  },
);

// Each broken server is the real service behind the proxy that breaks it.
t.test('every broken server is caught', async (t) => faultTests(t));

t.test(
  'a failure report has the shrunk case, and a curl line that repeats it with the key from the environment',
  async (t) => {
    const port = await misbehaving(
      t,
      FAULTS.find((entry) => entry.name === 'a rejection that does not say what to fix')!.fault,
    );
    const dir = mkdtempSync(join(tmpdir(), 'contract-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const { output } = await contract([
      '--url',
      `http://127.0.0.1:${port}/v1`,
      ...OPTIONS,
      '--report',
      `junit=${join(dir, 'junit.xml')}`,
    ]);
    t.match(output, /Counterexample: \[/, 'the counterexample');
    t.match(output, /Shrunk \d+ time/, 'shrunk');
    t.match(
      output,
      new RegExp(
        `reproduce: curl -i --globoff -X \\w+ 'http://127\\.0\\.0\\.1:${port}/v1/[^']*'.* -H "authorization: Bearer \\$\\{CONTRACT_API_KEY\\}"`,
      ),
      'curl, with the key left in the environment',
    );
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    t.match(junit, /failures="1"/);
    t.match(junit, /<failure message="[^"]+">/, 'the failure in the JUnit report');
  },
);

t.test('a target that rate-limits is waited on, never counted as a violation', async (t) => {
  let count = 0;
  // A real limit refuses before anything is done; this proxy has forwarded the request already, so
  // it limits only reads, which done twice return the same (a write done twice would not: a keyed
  // create would be replayed, a change would meet its own new ETag).
  const port = await misbehaving(t, {
    response: (exchange, reply) =>
      exchange.method === 'GET' && ++count % 4 === 0
        ? withJson(
            { ...reply, status: 429, headers: { ...reply.headers, 'retry-after': '0' } },
            { code: 'RATE_LIMITED', message: 'Slow down.', status: 429 },
          )
        : reply,
  });
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS]);
  t.equal(status, 0, output);
  t.match(output, /\(\d+ answered 429 and retried after Retry-After\)/);
});

t.test('--read-only creates nothing', async (t) => {
  // A deployment read-only runs against holds data: getPet reads the pets listPets responds (its link FirstPet),
  // getOrder the orders listOrders returns.
  const store = createMemoryPetStore();
  for (let index = 0; index < 3; index++)
    await store.create({ name: `pet ${index}`, categoryId: 1, status: 'available' });
  await store.orders.place(1, 900, { client: unnamedClientOf(API_KEY), maxHolds: 5 });
  const created: string[] = [];
  const port = await misbehaving(
    t,
    { request: (exchange) => (exchange.method === 'POST' && created.push(exchange.url), exchange) },
    store,
  );
  const { status, output } = await contract(['--url', `http://127.0.0.1:${port}/v1`, ...OPTIONS, '--read-only']);
  t.equal(status, 0, output);
  t.same(created, [], 'no POST reached the target');
  t.match(output, /0 writes answered 2xx/);
  t.notMatch(output, /POST \/pets/, 'createPet is not counted: it is not sent');

  const empty = await contract(['--url', `http://127.0.0.1:${await service(t)}/v1`, ...OPTIONS, '--read-only']);
  t.equal(empty.status, 1, 'on a deployment without pets, getPet gets no 2xx: that fails, and says why');
  t.match(
    empty.output,
    /getPet \(GET \/pets\/\{petId\}\): none of its \d+ valid requests got a 2xx \(404 ×\d+\); .*read-only: it creates nothing, so the target must hold data/,
  );
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
  const badLink = specFile('bad-link.json', (spec) =>
    Object.assign((spec.paths['/pets']!.post!.responses['201'] as { links: Record<string, unknown> }).links, {
      Gone: { operationId: 'readPet', parameters: { petId: '$response.body#/id' } },
    }),
  );
  const cases: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
    [
      'a spec that is not there',
      ['--url', `http://127.0.0.1:${port}/v1`, '--spec', join(dir, 'missing.yaml')],
      ENV,
      /--spec .*missing\.yaml: ENOENT/,
    ],
    [
      'a spec without operations',
      ['--url', `http://127.0.0.1:${port}/v1`, '--spec', noOperations],
      ENV,
      /empty\.json defines no operation/,
    ],
    [
      'a spec whose link leads nowhere',
      ['--url', `http://127.0.0.1:${port}/v1`, '--spec', badLink],
      ENV,
      /bad-link\.json: createPet 201 link Gone: no operation readPet \(npm run lint -- spec says more\)/,
    ],
    ['no URL', [], ENV, /--url is required/],
    [
      'a URL without the base path',
      ['--url', `http://127.0.0.1:${port}/`],
      ENV,
      /must be an http\(s\) URL whose path ends in \/v1/,
    ],
    ['no key', ['--url', `http://127.0.0.1:${port}/v1`], {}, /no API key: set CONTRACT_API_KEY, or give --key-file/],
    [
      'a key file that is not there',
      ['--url', `http://127.0.0.1:${port}/v1`, '--key-file', '/nonexistent/key'],
      {},
      /cannot read --key-file/,
    ],
    [
      'a limited key file that is not there',
      ['--url', `http://127.0.0.1:${port}/v1`, '--limited-key-file', '/nonexistent/key'],
      ENV,
      /cannot read --limited-key-file/,
    ],
    [
      "another client's key file that is not there",
      ['--url', `http://127.0.0.1:${port}/v1`, '--other-key-file', '/nonexistent/key'],
      ENV,
      /cannot read --other-key-file/,
    ],
    [
      'a refused key',
      ['--url', `http://127.0.0.1:${port}/v1`],
      { CONTRACT_API_KEY: 'not-the-key-0123456789' },
      /refused the API key \(401\)/,
    ],
    ['an unknown option', ['--url', `http://127.0.0.1:${port}/v1`, '--fast'], ENV, /Unknown option '--fast'/],
    ['a URL that is not one', ['--url', 'not a url'], ENV, /--url not a url is not a URL/],
    [
      'a bad count',
      ['--url', `http://127.0.0.1:${port}/v1`, '--cases', '0'],
      ENV,
      /--cases must be an integer of at least 1/,
    ],
    [
      'a bad report',
      ['--url', `http://127.0.0.1:${port}/v1`, '--report', 'html=x'],
      ENV,
      /--report must be junit=<file>/,
    ],
  ];
  for (const [what, args, env, reason] of cases) {
    const { status, output } = await contract(args, env);
    t.equal(status, 2, `${what}: exit 2`);
    t.match(output, reason, `${what}: says why`);
  }
  // A port that was just free, and is closed again: nothing responds there.
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
  await t.rejects(
    exitStatusOf('npm run contract', output, () => Promise.reject(new TypeError('a bug'))),
    TypeError,
  );
  t.same(printed, []);
});

t.test('--help says what each option does', async (t) => {
  // As the command line runs it: on the real clock.
  const { status, output } = await contract(['--help'], ENV, {});
  t.equal(status, 0);
  for (const option of [
    '--url',
    '--key-file',
    '--spec',
    '--seed',
    '--cases',
    '--timeout-ms',
    '--read-only',
    '--max-pages',
    '--report',
  ])
    t.match(output, option);
});

t.test('--max-pages bounds the walks over a large store, and the report says so', async (t) => {
  const store = createMemoryPetStore();
  for (let index = 0; index < 150; index++) await store.create({ name: `pet ${index}`, categoryId: 1 });
  const port = await service(t, store);
  // 13 cases: a count the checks do not divide evenly, so some run one case more.
  const { status, output } = await contract(
    ['--url', `http://127.0.0.1:${port}/v1`, '--cases', '13', '--seed', '3', '--max-pages', '1'],
    ENV,
  );
  t.equal(status, 0, output);
  t.match(
    output,
    /listPets' pages were read up to 1 pages a walk \(--max-pages\); pets beyond were read through getPet only/,
  );
});

t.test('a key file is read, and its key never printed', async (t) => {
  const port = await service(t);
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'key');
  writeFileSync(file, `${API_KEY}\n`);
  const { status, output } = await contract([
    '--url',
    `http://127.0.0.1:${port}/v1`,
    '--key-file',
    file,
    '--cases',
    '12',
    '--seed',
    '3',
  ]);
  t.equal(status, 0, output);
  t.notMatch(output, API_KEY);
});
