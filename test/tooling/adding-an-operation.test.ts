// What a team that adopts the service does first: it adds an operation. Here, on a copy of
// openapi.yaml, `replacePet` (PUT /pets/{petId}: a body of optional name, categoryId and status;
// 200 with the pet, 404 when there is none) with a handler of its own and a link from createPet's
// 201, and nothing else: no list of operations anywhere is told about it. Then:
// - npm run contract sends it valid requests (ids from the link), broken ones and ones without a
//   key, and passes; behind a proxy that changes its status, breaks its schema or drops a required
//   field, it fails naming replacePet;
// - npm run compat, with the copy released, refuses a breaking edit of replacePet and accepts a
//   rewording; marked experimental in the release, replacePet may change, and may not be made less
//   stable than a release made it.
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import { RELEASES_DIR, runCompat } from '#tools/compat';
import type { OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import type { PetStore } from '../../src/store/pet-store.js';
import type { PetId } from '../../src/types/api.js';
import type { FastifyRequest } from 'fastify';
import { PetNotFound } from '../../src/errors/api-errors.js';
import fc from 'fast-check';
import { contractOf, requestGenerators } from 'openapi-contract-engine';
import { API_KEY, buildTestApp } from '../helpers/build-app.js';
import { contract as runContract } from '../helpers/contract-faults.js';
import { faultyProxy, json, withJson, type Exchange, type Fault } from '../helpers/faulty-proxy.js';
import { specWith } from '../helpers/spec.js';
import { replacePet, withReplacePet } from '../helpers/replace-pet.js';

t.setTimeout(180_000);
// Seed 12: once the webhook operations joined the spec, seed 11's 80 cases no longer caught the
// handler that ignores its body (its one replacePet given 2xx showed nothing amiss).
const RUN = ['--seed', '12', '--cases', '80', '--timeout-ms', '5000'];

function fileOf(t: Test, spec: OpenApiDocument, name = 'openapi.yaml'): string {
  const file = join(t.testdir(), name);
  writeFileSync(file, stringify(spec));
  return file;
}

/** The service built from `spec`, with replacePet's handler, on 127.0.0.1; its port. */
async function serve(t: Test, spec: OpenApiDocument, handler: typeof replacePet = replacePet): Promise<number> {
  const store = createMemoryPetStore();
  const { app } = await buildTestApp(t, { logger: false, spec, store, handlers: { replacePet: handler(store) } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

const contract = (port: number, specFile: string) =>
  runContract(['--url', `http://127.0.0.1:${port}/v1`, '--spec', specFile, ...RUN]);

const isUpdate = (exchange: Exchange) => exchange.method === 'PUT';
const BREAKAGES: [string, Fault, RegExp][] = [
  [
    'a status the spec does not give it',
    { response: (exchange, reply) => (isUpdate(exchange) && reply.status === 200 ? { ...reply, status: 201 } : reply) },
    /replacePet responded 201, which openapi\.yaml does not document/,
  ],
  [
    'an answer outside its schema',
    {
      response: (exchange, reply) =>
        isUpdate(exchange) && reply.status === 200 ? withJson(reply, { ...json(reply), status: 'lost' }) : reply,
    },
    /replacePet 200 body does not match openapi\.yaml/,
  ],
  [
    'a required field lost',
    {
      response: (exchange, reply) => {
        if (!isUpdate(exchange) || reply.status !== 200) return reply;
        const { name: _name, ...pet } = json(reply);
        return withJson(reply, pet);
      },
    },
    /replacePet 200 body does not match openapi\.yaml: data must have required property 'name'/,
  ],
];

for (const stability of [undefined, 'experimental'] as const) {
  const marked = stability === undefined ? 'a stable operation' : `an operation marked ${stability}`;
  t.test(
    `${marked}: npm run contract sends it valid requests from the spec alone, and catches its broken answers`,
    async (t) => {
      const spec = withReplacePet(stability);
      const specFile = fileOf(t, spec);
      // One service; each broken server is a proxy in front of it (the pets other runs made do not matter).
      const port = await serve(t, spec);
      const { status, output } = await contract(port, specFile);
      t.equal(status, 0, output);
      t.match(
        output,
        /^ {2}PUT \/pets\/\{petId\} +replacePet +\d+ sent +\d+ valid +[1-9]\d* answered 2xx$/m,
        'replacePet got valid requests, and 2xx answers',
      );
      // Marked experimental, it is checked the same way: one breakage shows it.
      for (const [what, fault, report] of stability === undefined ? BREAKAGES : BREAKAGES.slice(-1)) {
        const broken = await contract(await faultyProxy(t, port, fault), specFile);
        t.equal(broken.status, 1, `${what}: exit 1`);
        // The generated cases meet a linked replacePet, or the coverage of every operation does: with
        // twenty operations (1.7.0) sharing the cases, which depends on the seed.
        t.match(
          broken.output,
          /^FAIL (a valid request is accepted|every operation answered a valid request with a 2xx)/m,
          `${what}: a check of valid requests fails`,
        );
        t.match(broken.output, report, `${what}: the report says what`);
        t.match(broken.output, /reproduce: curl -i --globoff -X PUT /, `${what}: the curl line repeats a PUT`);
      }
    },
  );
}

t.test('a handler that ignores its body is caught: a write answers with what it wrote', async (t) => {
  const spec = withReplacePet();
  // Responds the pet as it was, whatever the body asked to change.
  const ignoring = (store: PetStore) => async (request: FastifyRequest) => {
    const { petId } = request.params as { petId: PetId };
    const pet = (await store.get(petId))?.pet ?? null;
    if (pet === null) throw new PetNotFound(String(petId));
    return pet;
  };
  const { status, output } = await contract(await serve(t, spec, ignoring), fileOf(t, spec));
  t.equal(status, 1, status === 1 ? 'exit 1' : output);
  // Whichever property meets the write first reports it (the one of valid requests, or the one that sends each
  // operation's).
  t.match(output, /^FAIL (a valid request is accepted|every operation answered a valid request with a 2xx)/m);
  t.match(
    output,
    /PUT \/v1\/pets\/\d+ [^\n]*\n {2,4}the response does not hold what was written: (name|categoryId|status)/,
  );
});

// A query parameter of each kind the engine generates, added to replacePet: its broken values are
// generated, the service refuses text that is not of it (naming it) and takes text that is (no pet
// 1 here: 404, past validation), and a contract run passes: every valid request carries values the
// service takes, and every broken one is refused.
const QUERY_PARAMETERS: {
  kind: string;
  name: string;
  schema: Record<string, unknown>;
  rules: RegExp[];
  refused: [string, string][];
  taken?: string;
}[] = [
  {
    kind: 'a string',
    name: 'note',
    schema: { type: 'string', minLength: 1, maxLength: 20 },
    rules: [/^query parameter note (too short|too long)$/],
    refused: [],
  },
  {
    kind: 'a date-time',
    name: 'since',
    schema: { type: 'string', format: 'date-time' },
    rules: [/^query parameter since not a date-time$/],
    refused: [['yesterday', 'query parameter since must match format "date-time"']],
    taken: '2026-11-28T23%3A40%3A00.000Z',
  },
  {
    kind: 'a boolean',
    name: 'notify',
    schema: { type: 'boolean' },
    rules: [/^query parameter notify not true or false$/],
    refused: [['yes', 'query parameter notify must be true or false']],
    taken: 'true',
  },
  {
    kind: 'a number',
    name: 'price',
    schema: { type: 'number', minimum: 0 },
    rules: [/^query parameter price not a number$/, /^query parameter price below minimum$/],
    refused: [
      ['0x10', 'query parameter price must be a number'],
      ['1e400', 'query parameter price must be a number'],
      ['-0.5', 'query parameter price must be >= 0'],
    ],
    taken: '9.99',
  },
];

for (const { kind, name, schema, rules, refused, taken } of QUERY_PARAMETERS) {
  t.test(`${kind} query parameter: valid values sent, others refused naming it`, async (t) => {
    const spec = withReplacePet(undefined, (replacePet) =>
      replacePet['parameters'].push({ name, in: 'query', required: false, description: 'Added.', schema }),
    );
    const sampled = fc
      .sample(requestGenerators(contractOf(spec), API_KEY).brokenRequest(contractOf(spec).operation('replacePet')), {
        seed: 1,
        numRuns: 300,
      })
      .map((broken) => broken.rule);
    for (const rule of rules)
      t.ok(
        sampled.some((one) => rule.test(one)),
        `broken values of ${name}: ${rule.source}`,
      );
    const port = await serve(t, spec);
    const send = (text: string) =>
      fetch(`http://127.0.0.1:${port}/v1/pets/1?${name}=${text}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: '{}',
      });
    for (const [text, message] of refused) {
      const response = await send(text);
      t.same(
        { status: response.status, body: await response.json() },
        { status: 400, body: { code: 'VALIDATION_FAILED', message, status: 400 } },
        `${text} is refused, naming the parameter`,
      );
    }
    if (taken !== undefined) t.equal((await send(taken)).status, 404, `${taken} is taken`);
    const { status, output } = await contract(port, fileOf(t, spec));
    t.equal(status, 0, output);
  });
}

t.test('an operation open to all (security: []) is sent no key-less requests expecting 401', async (t) => {
  const spec = withReplacePet(undefined, (replacePet) => {
    replacePet['security'] = [];
    delete replacePet['responses']['401'];
  });
  const { status, output } = await contract(await serve(t, spec), fileOf(t, spec));
  t.equal(status, 0, output);
  t.match(output, /^ {2}PUT \/pets\/\{petId\} +replacePet +\d+ sent +\d+ valid +[1-9]\d* answered 2xx$/m);
});

t.test('an operation no valid request can be made for fails the run, naming it and why', async (t) => {
  // A required header: the generators make none, so replacePet could never be sent a valid request.
  const spec = withReplacePet(undefined, (replacePet) =>
    replacePet['parameters'].push({ name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' } }),
  );
  const { status, output } = await contract(await serve(t, spec), fileOf(t, spec));
  t.equal(status, 1, status === 1 ? 'exit 1' : output);
  t.match(output, /^FAIL every operation answered a valid request with a 2xx/m);
  t.match(
    output,
    /replacePet \(PUT \/pets\/\{petId\}\): no valid request could be generated: replacePet: required header parameters are not generated/,
  );
  t.match(
    output,
    /^ {2}PUT \/pets\/\{petId\} +replacePet +0 sent +0 valid +0 answered 2xx$/m,
    'counted, with nothing sent',
  );
});

/** Runs npm run compat on `current`, with the versions of docs/releases and `released` (as 1.8.0). */
async function gate(t: Test, released: OpenApiDocument, current: OpenApiDocument, cases = 200) {
  const dir = t.testdir({ releases: {} });
  for (const file of readdirSync(RELEASES_DIR)) copyFileSync(join(RELEASES_DIR, file), join(dir, 'releases', file));
  writeFileSync(join(dir, 'releases', 'openapi-1.8.0.yaml'), stringify(released));
  const specFile = join(dir, 'openapi.yaml');
  writeFileSync(specFile, stringify({ ...current, info: { ...current.info, version: '1.9.0' } }));
  const lines: string[] = [];
  // A breaking edit of one field shows in some of replacePet's valid requests only: 200 cases where one must show.
  const status = await runCompat(
    ['--spec', specFile, '--releases', join(dir, 'releases'), '--seed', '11', '--cases', String(cases)],
    { log: (line) => lines.push(line), error: (line) => lines.push(line) },
    { handlers: (store) => ({ replacePet: replacePet(store) }) },
  );
  return { status, output: lines.join('\n') };
}

const nameRequired = (replacePet: Record<string, any>, spec: OpenApiDocument) => {
  void replacePet;
  (spec.components.schemas as Record<string, { required?: string[] }>)['PetChanges']!.required = ['name'];
};
const reworded = (replacePet: Record<string, any>) =>
  void (replacePet['description'] = 'Changes a pet: the fields the body gives, and only those.');

t.test(
  'npm run compat holds a released operation to its release: a breaking edit is refused, a rewording accepted',
  async (t) => {
    const released = withReplacePet();
    const breaking = await gate(t, released, withReplacePet(undefined, nameRequired));
    t.equal(breaking.status, 1, 'name made required: a 1.8.0 client that sends only a status now gets 400');
    t.match(breaking.output, /"operationId":"replacePet"[\s\S]*body\.name is required/);
    t.match(breaking.output, /summary: a breaking change for clients of 1\.8\.0;/);
    t.match(
      breaking.output,
      /^ {2}PUT \/pets\/\{petId\} +replacePet +\d+ sent +\d+ valid +\d+ answered 2xx$/m,
      'the per-operation counts',
    );

    const rewording = await gate(t, released, withReplacePet(undefined, reworded), 60);
    t.equal(rewording.status, 0, rewording.output);
    t.match(rewording.output, /summary: every released version is kept;/);
  },
);

t.test(
  'an operation experimental in a release may change; it may not be made less stable than a release made it',
  async (t) => {
    const experimental = withReplacePet('experimental');
    const changed = await gate(t, experimental, withReplacePet('experimental', nameRequired), 60);
    t.equal(changed.status, 0, changed.output);
    t.match(changed.output, /experimental there, so not held: replacePet/);
    const removed = await gate(
      t,
      experimental,
      specWith((spec) => void (spec.info.version = '1.8.0')),
      60,
    );
    t.equal(removed.status, 0, `removed altogether: ${removed.output}`);

    const beta = await gate(t, withReplacePet('beta'), withReplacePet('beta', nameRequired));
    t.equal(beta.status, 1, 'beta is held like stable: a breaking edit is refused');
    // Lowering is read from the two documents; a few cases are enough to run the gate.
    const lowered = await gate(t, withReplacePet(), withReplacePet('experimental'), 8);
    t.equal(lowered.status, 1, 'stable in 1.8.0, experimental now');
    t.match(lowered.output, /^FAIL no operation is less stable than this version made it/m);
    t.match(lowered.output, /replacePet is stable in 1\.8\.0 and experimental now/);
  },
);
