// Brownouts: windows announced in the spec (x-brownouts) in which a deprecated operation responds
// the 410 of its sunset on purpose, so that clients who ignore headers notice before the sunset.
// Every state is driven by an injected clock: before the deprecation, deprecated, inside and
// between windows, after the sunset. Invalid windows stop start-up with the problem named.
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { retirementCheckOf } from '../../src/routes/deprecation-headers.js';
import { lifecycleOf } from '../../src/openapi/lifecycle.js';
import { operationsOf } from '../../src/openapi/openapi-spec.js';
import { API_KEY, AUTH, buildTestApp, postPet } from '../helpers/build-app.js';
import { checkContract } from '../helpers/contract.js';
import { specWith } from '../helpers/spec.js';

const MARKERS = {
  'x-deprecated-at': '2027-01-01',
  'x-sunset': '2028-01-01',
  'x-brownouts': [
    { start: '2027-09-01T14:00:00Z', end: '2027-09-01T15:00:00Z' },
    { start: '2027-06-01T14:00:00Z', end: '2027-06-02T14:00:00.500Z' },
  ],
};
const at = (text: string) => Date.parse(text);

t.test('each state of the lifecycle, as a client sees it', async (t) => {
  let now = 0;
  const { app } = await buildTestApp(t, {
    spec: specWith((spec) => Object.assign(spec.paths['/pets/{petId}']!.get!, MARKERS)),
    clock: () => now,
  });
  t.equal((await app.inject(postPet({ name: 'Rex', categoryId: 1 }))).statusCode, 201);
  const states: [string, string, number, string?][] = [
    ['before the deprecation date', '2026-12-31T23:59:59Z', 200],
    ['deprecated', '2027-03-01T00:00:00Z', 200],
    ['a millisecond before the first window', '2027-06-01T13:59:59.999Z', 200],
    [
      'inside the first window',
      '2027-06-01T14:00:00Z',
      410,
      'getPet is unavailable during a scheduled brownout until 2027-06-02T14:00:00.500Z; it will be retired on 2028-01-01 (its sunset); use listPets: GET /v1/pets.',
    ],
    ['late in the first window', '2027-06-02T14:00:00.499Z', 410],
    ['as the first window ends', '2027-06-02T14:00:00.500Z', 200],
    ['between the windows', '2027-08-01T00:00:00Z', 200],
    [
      'inside the second window',
      '2027-09-01T14:30:00Z',
      410,
      'getPet is unavailable during a scheduled brownout until 2027-09-01T15:00:00Z; it will be retired on 2028-01-01 (its sunset); use listPets: GET /v1/pets.',
    ],
    ['after the last window', '2027-12-31T23:59:59.999Z', 200],
    [
      'from the sunset on',
      '2028-01-01T00:00:00Z',
      410,
      'getPet was retired on 2028-01-01 (its sunset); use listPets: GET /v1/pets.',
    ],
    // The clock may move back (a test's does): the check follows it.
    ['back inside the first window', '2027-06-01T20:00:00Z', 410],
    ['back before the deprecation', '2026-06-01T00:00:00Z', 200],
  ];
  for (const [state, time, status, message] of states) {
    now = at(time);
    const response = await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH });
    t.equal(response.statusCode, status, `${state} (${time}): ${status}`);
    const body = checkContract(t, response, 'getPet');
    if (message !== undefined) t.equal(body.message, message, `${state}: what the client reads`);
    t.equal(response.headers['sunset'], 'Sat, 01 Jan 2028 00:00:00 GMT', `${state}: the Sunset header`);
    if (status === 410) {
      t.equal(
        (await app.inject({ method: 'GET', url: '/v1/pets/999', headers: AUTH })).statusCode,
        410,
        `${state}: an unknown id too`,
      );
      t.equal((await app.inject({ method: 'GET', url: '/v1/pets/1' })).statusCode, 401, `${state}: no key, 401 first`);
    }
  }
  now = at('2027-06-01T14:30:00Z');
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH })).statusCode,
    200,
    'listPets, the replacement, is not browned out',
  );
});

/** getPet browned out from 14:00 to 15:00 UTC on 2027-06-01, without these markers; and a call at 14:00. */
async function brownoutWithout(t: Test, ...markers: string[]) {
  const spec = specWith((spec) => {
    const getPet = spec.paths['/pets/{petId}']!.get!;
    for (const marker of markers) delete getPet[marker as `x-${string}`];
    Object.assign(getPet, { 'x-brownouts': [{ start: '2027-06-01T14:00:00Z', end: '2027-06-01T15:00:00Z' }] });
  });
  const { app } = await buildTestApp(t, { spec, clock: () => at('2027-06-01T14:00:00Z') });
  return { spec, response: await app.inject({ method: 'GET', url: '/v1/pets/1', headers: AUTH }) };
}

t.test('a brownout without a sunset names no sunset', async (t) => {
  const { response } = await brownoutWithout(t, 'x-sunset');
  t.equal(response.statusCode, 410);
  t.equal(
    JSON.parse(response.body).message,
    'getPet is unavailable during a scheduled brownout until 2027-06-01T15:00:00Z; use listPets: GET /v1/pets.',
  );
});

t.test(
  'a brownout of an operation with no sunset and no replacement names neither; its windows are read all the same',
  async (t) => {
    const { spec, response } = await brownoutWithout(t, 'x-sunset', 'x-replaced-by');
    t.equal(response.statusCode, 410);
    t.equal(
      JSON.parse(response.body).message,
      'getPet is unavailable during a scheduled brownout until 2027-06-01T15:00:00Z.',
    );
    const operations = operationsOf(spec);
    const windowsOf = (operationId: string) =>
      lifecycleOf(
        operations.find((operation) => operation.operationId === operationId)!,
        operations,
      ).deprecation?.brownouts;
    t.same(windowsOf('getPet'), [
      { start: at('2027-06-01T14:00:00Z'), end: at('2027-06-01T15:00:00Z'), endText: '2027-06-01T15:00:00Z' },
    ]);
    t.equal(windowsOf('listPets'), undefined, 'none for an operation not deprecated');
  },
);

t.test(
  'an edited spec over HTTP on the real clock: a window around now browns out, one long past does not',
  async (t) => {
    // Windows far from any real "now" on one side, and one spanning centuries on the other, so that
    // the response cannot depend on the day the test runs. Served as usual, the store is read: it
    // holds no pet 1, hence 404.
    for (const [brownouts, status] of [
      [[{ start: '2000-01-01T00:00:00Z', end: '2000-01-02T00:00:00Z' }], 404],
      [[{ start: '2000-01-01T00:00:00Z', end: '2999-01-01T00:00:00Z' }], 410],
    ] as const) {
      const spec = specWith((spec) =>
        Object.assign(spec.paths['/pets/{petId}']!.get!, {
          'x-deprecated-at': '1999-01-01',
          'x-sunset': '3000-01-01',
          'x-brownouts': brownouts,
        }),
      );
      const app = await buildApp({ apiKeys: [API_KEY], spec });
      t.teardown(() => app.close());
      await app.listen({ host: '127.0.0.1', port: 0 });
      const response = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/pets/1`, {
        headers: AUTH,
      });
      t.equal(response.status, status, `${brownouts[0].start} to ${brownouts[0].end}: ${status}`);
      await response.arrayBuffer();
    }
  },
);

t.test('windows that cannot be kept stop start-up, naming the problem', async (t) => {
  const cases: [string, unknown, RegExp][] = [
    [
      'not a list',
      { start: '2027-06-01T14:00:00Z', end: '2027-06-01T15:00:00Z' },
      /x-brownouts must be a list of \{start, end\}/,
    ],
    [
      'a date without a time',
      [{ start: '2027-06-01', end: '2027-06-02T00:00:00Z' }],
      /x-brownouts\[0\]\.start must be an RFC 3339 date-time in UTC/,
    ],
    [
      'a time in another zone',
      [{ start: '2027-06-01T14:00:00Z', end: '2027-06-01T15:00:00+02:00' }],
      /x-brownouts\[0\]\.end must be an RFC 3339 date-time in UTC/,
    ],
    [
      'an impossible time',
      [{ start: '2027-06-01T25:00:00Z', end: '2027-06-02T00:00:00Z' }],
      /x-brownouts\[0\]\.start must be/,
    ],
    ['a missing end', [{ start: '2027-06-01T14:00:00Z' }], /x-brownouts\[0\]\.end must be/],
    ['no window at all', [null], /x-brownouts\[0\]\.start must be/],
    [
      'an end before its start',
      [{ start: '2027-06-01T15:00:00Z', end: '2027-06-01T14:00:00Z' }],
      /x-brownouts\[0\] must start before it ends/,
    ],
    [
      'an empty window',
      [{ start: '2027-06-01T15:00:00Z', end: '2027-06-01T15:00:00Z' }],
      /x-brownouts\[0\] must start before it ends/,
    ],
    [
      'before the deprecation',
      [{ start: '2026-12-31T23:00:00Z', end: '2027-01-01T01:00:00Z' }],
      /x-brownouts\[0\] starts before x-deprecated-at/,
    ],
    [
      'past the sunset',
      [{ start: '2027-12-31T23:00:00Z', end: '2028-01-01T00:00:01Z' }],
      /x-brownouts\[0\] ends after x-sunset/,
    ],
    [
      'two that overlap',
      [
        { start: '2027-06-01T14:00:00Z', end: '2027-06-01T16:00:00Z' },
        { start: '2027-06-01T15:59:59Z', end: '2027-06-01T17:00:00Z' },
      ],
      /x-brownouts\[0\] and x-brownouts\[1\] overlap/,
    ],
  ];
  for (const [what, brownouts, problem] of cases) {
    const spec = specWith((spec) =>
      Object.assign(spec.paths['/pets/{petId}']!.get!, { ...MARKERS, 'x-brownouts': brownouts }),
    );
    await t.rejects(buildApp({ apiKeys: [API_KEY], spec }), problem, what);
  }
  const notDeprecated = specWith((spec) => Object.assign(spec.paths['/pets']!.get!, { 'x-brownouts': [] }));
  await t.rejects(
    buildApp({ apiKeys: [API_KEY], spec: notDeprecated }),
    /operation listPets: x-brownouts needs deprecated: true/,
  );
  // Adjacent windows are not an overlap.
  const operations = operationsOf(
    specWith((spec) =>
      Object.assign(spec.paths['/pets/{petId}']!.get!, {
        ...MARKERS,
        'x-brownouts': [
          { start: '2027-06-01T14:00:00Z', end: '2027-06-01T15:00:00Z' },
          { start: '2027-06-01T15:00:00Z', end: '2027-06-01T16:00:00Z' },
        ],
      }),
    ),
  );
  const check = retirementCheckOf(
    lifecycleOf(
      operations.find((operation) => operation.operationId === 'getPet')!,
      operations,
    ),
    '/v1',
  )!;
  t.doesNotThrow(() => check(at('2027-06-01T13:00:00Z')));
  t.throws(
    () => check(at('2027-06-01T15:00:00Z')),
    { code: 'OPERATION_GONE' },
    'the second window starts as the first ends',
  );
});
