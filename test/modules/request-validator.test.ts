// The validators Fastify gets for each part of a request, shared between the apps one process
// builds when their schemas are the same text.
import t from 'tap';
import { createValidatorCompiler } from '../../src/validation/request-validator.js';

type Compiled = ((data: unknown) => boolean) & { errors?: unknown };
const bodyValidator = (compiler: ReturnType<typeof createValidatorCompiler>, schema: object) =>
  compiler({ schema, httpPart: 'body', method: 'POST', url: '/pets' }) as Compiled;

t.test(
  'two apps with the same body schema share one validator; the oldest of more than 1,000 is dropped',
  async (t) => {
    const first = createValidatorCompiler();
    const second = createValidatorCompiler();
    const schema = (n: number) => ({ type: 'object', properties: { n: { const: n } }, required: ['n'] });

    const shared = bodyValidator(first, schema(0));
    t.equal(bodyValidator(second, schema(0)), shared, 'the same schema text: the same function');
    t.not(bodyValidator(second, schema(1)), shared, 'another schema: another function');
    t.ok(shared({ n: 0 }), 'it validates');
    t.notOk(shared({ n: 1 }), 'and refuses');

    for (let n = 1; n <= 1_000; n++) bodyValidator(first, schema(n));
    const newest = bodyValidator(first, schema(1_000));
    t.equal(bodyValidator(second, schema(1_000)), newest, 'the newest is kept');
    const again = bodyValidator(second, schema(0));
    t.not(again, shared, 'the oldest was dropped and is compiled again');
    t.ok(again({ n: 0 }), 'and validates as before');
  },
);

t.test('a header an operation declares as an integer, a number or a boolean reaches it decoded', async (t) => {
  const headers = createValidatorCompiler()({
    schema: {
      type: 'object',
      properties: {
        'X-Priority': { type: 'integer', format: 'int32' },
        'X-Weight': { type: 'number' },
        'X-Dry-Run': { type: 'boolean' },
        'Idempotency-Key': { type: 'string' },
      },
      required: ['X-Priority'],
    },
    httpPart: 'headers',
    method: 'POST',
    url: '/pets',
  }) as Compiled;
  const sent = { 'x-priority': '3', 'x-weight': '1.5e1', 'x-dry-run': 'true', 'idempotency-key': '12', host: 'a' };
  t.ok(headers(sent), 'plain text of each type is valid');
  t.same(
    sent,
    { 'x-priority': 3, 'x-weight': 15, 'x-dry-run': true, 'idempotency-key': '12', host: 'a' },
    'and decoded in place; a string header and an undeclared one are left as sent',
  );
  for (const [name, text] of [
    ['x-priority', '0x3'],
    ['x-weight', '1e400'],
    ['x-dry-run', 'TRUE'],
  ] as const) {
    const request = { 'x-priority': '3', [name]: text };
    t.notOk(headers(request), `${name}: ${text} is refused`);
    t.equal(request[name], text, 'and left as it was sent');
  }
  t.notOk(headers({}), 'a required header missing is refused');
  const plain = createValidatorCompiler()({
    schema: { type: 'object', properties: { 'Idempotency-Key': { type: 'string' } } },
    httpPart: 'headers',
    method: 'POST',
    url: '/pets',
  }) as Compiled;
  t.ok(plain({ 'idempotency-key': 'k' }), 'an operation with only string headers validates as before');
});
