import t from 'tap';
import type { InjectOptions } from 'fastify';
import { securityHeaders } from '../../src/routes/security-headers.js';
import { AUTH, buildTestApp, postPet } from '../helpers/build-app.js';

const EXPECTED = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
};

t.test('helmet gives the OWASP REST headers, and only those', async (t) => {
  t.same(securityHeaders(), EXPECTED);
});

t.test('every answer of the API carries them, errors included', async (t) => {
  const { app } = await buildTestApp(t);
  const requests: [string, InjectOptions][] = [
    ['createPet 201', postPet({ name: 'Rex', categoryId: 1 })],
    ['listPets 200', { method: 'GET', url: '/v1/pets', headers: AUTH }],
    ['getPet 200', { method: 'GET', url: '/v1/pets/1', headers: AUTH }],
    ['getPet 404', { method: 'GET', url: '/v1/pets/2', headers: AUTH }],
    ['401', { method: 'GET', url: '/v1/pets' }],
    ['400', { method: 'GET', url: '/v1/pets?limit=0', headers: AUTH }],
    ['415', postPet('{}', { 'content-type': 'text/plain' })],
    ['413', postPet({ name: 'x'.repeat(17_000), categoryId: 1 })],
    ['404 route', { method: 'GET', url: '/v1/orders', headers: AUTH }],
    ['405', { method: 'DELETE', url: '/v1/pets', headers: AUTH }],
    ['400 bad URL', { method: 'GET', url: '/v1/pets/%E0%A4%A', headers: AUTH }],
  ];
  for (const [what, request] of requests) {
    const response = await app.inject(request);
    for (const [name, value] of Object.entries(EXPECTED)) t.equal(response.headers[name], value, `${what}: ${name}`);
  }
});

t.test('Swagger UI keeps what its page needs', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/docs/' });
  t.equal(page.statusCode, 200);
  t.equal(page.headers['content-security-policy'], undefined, "no default-src 'none' to block its scripts");
});
