import t from 'tap';
import { lifecycleOf } from '../../src/openapi/lifecycle.js';
import { operationsOf } from '../../src/openapi/openapi-spec.js';
import { buildApp } from '../../src/app.js';
import { API_KEY, AUTH, buildTestApp } from '../helpers/build-app.js';
import { specWith } from '../helpers/spec.js';

t.test('any operation the spec marks deprecated gets the headers, from its own markers', async (t) => {
  const spec = specWith((spec) => {
    Object.assign(spec.paths['/pets']!.post!, {
      deprecated: true,
      'x-deprecated-at': '2027-01-31',
      'x-sunset': '2031-06-30',
      'x-replaced-by': 'listPets',
    });
    Object.assign(spec.paths['/pets']!.get!, { deprecated: true, 'x-deprecated-at': '2027-02-01' });
  });
  const { app } = await buildTestApp(t, { spec });
  const created = await app.inject({ method: 'POST', url: '/v1/pets', headers: AUTH });
  t.match(created.headers, {
    deprecation: `@${Date.UTC(2027, 0, 31) / 1000}`,
    sunset: 'Mon, 30 Jun 2031 00:00:00 GMT',
    link: '</v1/pets>; rel="successor-version"',
  });
  const listed = await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.equal(listed.headers['deprecation'], `@${Date.UTC(2027, 1, 1) / 1000}`);
  t.notOk(listed.headers['sunset'], 'no sunset marker, no Sunset header');
  t.notOk(listed.headers['link'], 'no replacement marker, no Link header');
});

t.test('markers that cannot make valid headers stop start-up', async (t) => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'no deprecation date',
      { 'x-deprecated-at': undefined },
      /operation getPet: a deprecated operation needs x-deprecated-at \(YYYY-MM-DD\)/,
    ],
    [
      'a deprecation date that is not a date',
      { 'x-deprecated-at': 'soon' },
      /operation getPet: x-deprecated-at must be a date, YYYY-MM-DD/,
    ],
    ['an impossible date', { 'x-sunset': '2030-13-45' }, /operation getPet: x-sunset must be a date, YYYY-MM-DD/],
    [
      'an unknown replacement',
      { 'x-replaced-by': 'findPets' },
      /x-replaced-by must name an operation whose path has no parameters/,
    ],
    [
      'a replacement with a path parameter',
      { 'x-replaced-by': 'getPet' },
      /x-replaced-by must name an operation whose path has no parameters/,
    ],
  ];
  for (const [what, markers, problem] of cases) {
    const spec = specWith((spec) => Object.assign(spec.paths['/pets/{petId}']!.get!, markers));
    const operations = operationsOf(spec);
    const getPet = operations.find((operation) => operation.operationId === 'getPet')!;
    t.throws(() => lifecycleOf(getPet, operations), problem, what);
    await t.rejects(buildApp({ apiKeys: [API_KEY], spec }), problem, `${what}: the service does not start`);
  }
});
