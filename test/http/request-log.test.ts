import { Writable } from 'node:stream';
import pino, { type LoggerOptions } from 'pino';
import t, { type Test } from 'tap';
import { unnamedClientOf } from '../../src/auth/api-clients.js';
import { escaped, hundredthsText, RequestLog } from '../../src/logging/request-log.js';
import { API_KEY, AUTH, buildTestApp, OTHER_API_KEY, postPet } from '../helpers/build-app.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/** A destination that keeps every line written to it. */
function lineSink() {
  const lines: string[] = [];
  return {
    lines,
    stream: new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) }),
  };
}

t.test('one line per answered request: method, path, status, time, request id and operation', async (t) => {
  // At info, as npm start runs.
  const { lines, stream } = lineSink();
  const { app: logged } = await buildTestApp(t, {
    logger: { level: 'info', stream, redact: ['req.headers.authorization'] },
  });
  await logged.inject(postPet({ name: 'Rex', categoryId: 1 }));
  await logged.inject({ method: 'GET', url: '/v1/pets?limit=5&status=sold', headers: AUTH });
  await logged.inject({ method: 'GET', url: '/v1/pets/9', headers: { authorization: `Bearer ${API_KEY}x` } });
  await logged.inject({ method: 'GET', url: '/v1/nothing', headers: AUTH });
  const entries = lines.map((line) => JSON.parse(line));
  t.same(
    entries.map(({ msg, method, path, status, operationId }) => ({ msg, method, path, status, operationId })),
    [
      { msg: 'request completed', method: 'POST', path: '/v1/pets', status: 201, operationId: 'createPet' },
      { msg: 'request completed', method: 'GET', path: '/v1/pets', status: 200, operationId: 'listPets' },
      { msg: 'request completed', method: 'GET', path: '/v1/pets/9', status: 401, operationId: 'getPet' },
      { msg: 'request completed', method: 'GET', path: '/v1/nothing', status: 404, operationId: undefined },
    ],
    'one line each, the query left out',
  );
  t.ok(
    entries.every(
      (entry) => typeof entry.reqId === 'string' && typeof entry.responseTime === 'number' && entry.responseTime >= 0,
    ),
    'with request id and response time',
  );
  t.notMatch(lines.join(''), API_KEY, 'no key, right or wrong, reaches the log');
  t.notMatch(lines.join(''), /authorization/i, 'no Authorization header');
  t.same(
    entries.map(({ client }) => client),
    [unnamedClientOf(API_KEY), unnamedClientOf(API_KEY), undefined, undefined],
    'the client once authenticated (a key configured without a name is named after its hash); none for a wrong key or where no operation authenticates',
  );
  t.ok(
    entries.every((entry) => entry.trace_id === undefined && entry.span_id === undefined),
    'no trace ids when no trace came in',
  );
  t.same(
    entries.map(({ deprecated }) => deprecated),
    [undefined, undefined, true, undefined],
    'deprecated: true on the line of a call of a deprecated operation (getPet), whatever its answer',
  );
});

t.test('the line names the client of the key, and the trace a valid traceparent names', async (t) => {
  const { lines, stream } = lineSink();
  const { app } = await buildTestApp(t, {
    apiKeys: [
      { client: 'mobile-app', key: API_KEY },
      { client: 'mobile-app', key: OTHER_API_KEY },
    ],
    logger: { level: 'info', stream },
  });
  const list = (authorization: string, traceparent?: string) =>
    app.inject({
      method: 'GET',
      url: '/v1/pets',
      headers: { authorization, ...(traceparent === undefined ? {} : { traceparent }) },
    });
  t.equal((await list(`Bearer ${API_KEY}`, TRACEPARENT)).statusCode, 200);
  t.equal((await list(`Bearer ${OTHER_API_KEY}`, TRACEPARENT)).statusCode, 200);
  const invalid = [
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
    `ff-${TRACE_ID}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`,
    `00-${TRACE_ID}-00f067aa0ba902b7`,
    `${TRACEPARENT}, ${TRACEPARENT}`,
    'garbage',
  ];
  for (const traceparent of invalid)
    t.equal((await list(`Bearer ${API_KEY}`, traceparent)).statusCode, 200, `ignored, never a 400: ${traceparent}`);
  t.equal((await list(`Bearer ${API_KEY}`, `01-${TRACE_ID}-00f067aa0ba902b7-01-later-fields`)).statusCode, 200);
  const entries = lines.map((line) => JSON.parse(line) as Record<string, string>);
  t.same(
    entries.map(({ client }) => client),
    Array(entries.length).fill('mobile-app'),
    'two keys, one client: rotation',
  );
  const traced = entries.filter((entry) => entry['trace_id'] !== undefined);
  t.equal(traced.length, 3, 'the two valid version-00 headers and the later version');
  t.ok(
    traced.every((entry) => entry['trace_id'] === TRACE_ID),
    "the caller's trace id",
  );
  t.ok(
    traced.every((entry) => /^[0-9a-f]{16}$/.test(entry['span_id']!) && entry['span_id'] !== '00f067aa0ba902b7'),
    "a span id of the service, not the caller's",
  );
  t.not(traced[0]!['span_id'], traced[1]!['span_id'], 'one per request');
});

// The request line is composed without pino's serializer (src/logging/request-log.ts): it must be
// the line pino itself writes, byte for byte, for the logger's options, or pino must write it.
const requestLines = async (t: Test, options: LoggerOptions) => {
  const { lines, stream } = lineSink();
  const { app } = await buildTestApp(t, { loggerInstance: pino(options, stream) });
  await app.inject(postPet({ name: 'Rex "the \\ dog" \u00e9\u{1F415}', categoryId: 1 }));
  await app.inject({ method: 'GET', url: '/v1/pets?limit=5', headers: { ...AUTH, traceparent: TRACEPARENT } });
  await app.inject({ method: 'GET', url: '/v1/pets/%22%5C%C3%A9?x=1', headers: AUTH });
  await app.inject({ method: 'GET', url: '/v1/%E2%80%A8"\\', headers: AUTH });
  return lines;
};
const pinoLines = (options: LoggerOptions, lines: string[]) =>
  lines.map((line) => {
    const { level, time, pid, hostname, reqId, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
    let written = '';
    const stream = { write: (text: string) => void (written += text) };
    pino({ ...options, timestamp: () => `,"time":${time as number}`, base: { pid, hostname } }, stream)
      .child({ reqId })
      [pino.levels.labels[level as number] as 'info'](fields, msg as string);
    return written;
  });

t.test('the request line is the line pino writes, for any path, method and request id', async (t) => {
  const options: LoggerOptions = { level: 'info', redact: ['req.headers.authorization'] };
  const lines = await requestLines(t, options);
  t.equal(lines.length, 4);
  t.same(lines, pinoLines(options, lines));
  t.match(JSON.parse(lines[2]!), {
    path: '/v1/pets/%22%5C%C3%A9',
    operationId: 'getPet',
    deprecated: true,
    status: 400,
  });
  t.match(
    JSON.parse(lines[1]!),
    { client: unnamedClientOf(API_KEY), trace_id: TRACE_ID, span_id: /^[0-9a-f]{16}$/ },
    'with client and trace ids',
  );
});

t.test('a logger whose options change its lines writes the request line through pino', async (t) => {
  type Entry = Record<string, unknown>;
  const variants: [string, LoggerOptions, (entry: Entry) => boolean][] = [
    ['a mixin', { mixin: () => ({ service: 'petstore' }) }, (entry) => entry['service'] === 'petstore'],
    [
      'a log formatter',
      { formatters: { log: (fields) => ({ ...fields, formatted: true }) } },
      (entry) => entry['formatted'] === true,
    ],
    ['level labels', { formatters: { level: (label) => ({ level: label }) } }, (entry) => entry['level'] === 'info'],
    [
      'a nested key',
      { nestedKey: 'fields' },
      (entry) => entry['path'] === undefined && typeof (entry['fields'] as Entry)['path'] === 'string',
    ],
    ['a message prefix', { msgPrefix: '[petstore] ' }, (entry) => entry['msg'] === '[petstore] request completed'],
    [
      'a message key',
      { messageKey: 'message' },
      (entry) => entry['message'] === 'request completed' && entry['msg'] === undefined,
    ],
    [
      'a serializer',
      { serializers: { path: (path: string) => path.toUpperCase() } },
      (entry) => String(entry['path']).startsWith('/V1/'),
    ],
    ['redaction', { redact: ['path'] }, (entry) => entry['path'] === '[Redacted]'],
    [
      'base bindings',
      { base: { service: 'petstore' } },
      (entry) => entry['service'] === 'petstore' && entry['pid'] === undefined,
    ],
    ['a time format', { timestamp: pino.stdTimeFunctions.isoTime }, (entry) => typeof entry['time'] === 'string'],
  ];
  for (const [name, variant, holds] of variants) {
    const lines = await requestLines(t, { level: 'info', ...variant });
    const entries = lines.map((line) => JSON.parse(line) as Entry);
    t.equal(entries.length, 4, name);
    t.ok(entries.every(holds), name);
    const traced = entries[1]!;
    t.ok(
      ((traced['fields'] as Entry | undefined) ?? traced)['client'] === unnamedClientOf(API_KEY) &&
        ((traced['fields'] as Entry | undefined) ?? traced)['trace_id'] === TRACE_ID,
      `${name}: client and trace id through pino`,
    );
  }
});

t.test('a request gets its pino child, bound to its request id, only when something logs through it', async (t) => {
  const { lines, stream } = lineSink();
  let children = 0;
  // pino calls onChild for every child made, at any depth.
  const root = pino({ level: 'info', onChild: () => void children++ }, stream);
  const { app } = await buildTestApp(t, { loggerInstance: root });
  app.get('/v1/talkative', async (request) => {
    request.log.warn({ said: 'something' }, 'a request that logs');
    return {};
  });
  // Fastify derives one logger of its own from ours: made once, when the first line is written.
  await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.ok(children <= 1, 'at most that one');
  const atStart = children;
  await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  await app.inject(postPet({ name: 'Rex', categoryId: 1 }));
  await app.inject({ method: 'GET', url: '/v1/pets/x', headers: AUTH });
  t.equal(children - atStart, 0, 'three requests, their lines written, no child made');
  await app.inject({ method: 'GET', url: '/v1/talkative' });
  t.equal(children - atStart, 1, 'one child for the request that logged');
  const [said, completed] = lines.slice(-2).map((line) => JSON.parse(line) as Record<string, unknown>);
  t.match(said, { level: 40, said: 'something', msg: 'a request that logs' });
  t.equal(said!['reqId'], completed!['reqId'], 'its line carries the request id, as its request line does');
  t.equal(typeof said!['reqId'], 'string');
});

t.test('a level set while the service runs holds for the request lines', async (t) => {
  const { lines, stream } = lineSink();
  const { app } = await buildTestApp(t, { loggerInstance: pino({ level: 'info' }, stream) });
  const requests = async () => {
    const before = lines.length;
    for (let count = 0; count < 3; count++) await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
    return lines.length - before;
  };
  t.equal(await requests(), 3, 'at info');
  app.log.level = 'warn';
  t.equal(await requests(), 0, 'at warn');
  app.log.level = 'debug';
  t.equal(await requests(), 3, 'at debug');
  app.log.level = 'silent';
  t.equal(await requests(), 0, 'silent');
});

t.test('levels compared the other way round are respected', async (t) => {
  const { lines, stream } = lineSink();
  // Lower numbers more severe.
  const customLevels = { fatal: 10, error: 20, warn: 30, info: 40, debug: 50, trace: 60 };
  const logger = pino({ level: 'warn', customLevels, useOnlyCustomLevels: true, levelComparison: 'DESC' }, stream);
  const { app } = await buildTestApp(t, { loggerInstance: logger as never });
  await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.equal(lines.length, 0, 'none at warn');
  app.log.level = 'debug';
  await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.equal(lines.length, 1, 'one at debug');
});

t.test('no request lines below info', async (t) => {
  const { lines, stream } = lineSink();
  const { app } = await buildTestApp(t, { logger: { level: 'warn', stream } });
  await app.inject({ method: 'GET', url: '/v1/pets', headers: AUTH });
  t.same(lines, []);
});

t.test('an answer that fails while it is sent is logged as an error, with its request', async (t) => {
  const entries: { fields: Record<string, unknown>; message: string }[] = [];
  const log = { error: (fields: Record<string, unknown>, message: string) => void entries.push({ fields, message }) };
  const request = {
    log,
    url: '/v1/pets?limit=1',
    method: 'GET',
    client: 'mobile-app',
    headers: { traceparent: TRACEPARENT },
    routeOptions: { schema: { operationId: 'listPets' }, config: {} },
  };
  const failure = new Error('socket hang up');
  const trace = { traceId: TRACE_ID, spanId: '00f067aa0ba902b7' };
  new RequestLog(() => trace).requestCompleted(
    failure,
    request as never,
    { statusCode: 200, elapsedTime: 1.234 } as never,
  );
  t.same(entries, [
    {
      message: 'request failed while responding',
      fields: {
        method: 'GET',
        path: '/v1/pets',
        status: 200,
        responseTime: 1.23,
        operationId: 'listPets',
        client: 'mobile-app',
        trace_id: TRACE_ID,
        span_id: trace.spanId,
        err: failure,
      },
    },
  ]);
});

t.test('response times are written as JSON writes them', async (t) => {
  const wrong = [];
  for (let hundredths = 0; hundredths <= 3_000_000; hundredths++) {
    if (hundredthsText(hundredths) !== JSON.stringify(hundredths / 100)) wrong.push(hundredths);
  }
  t.same(wrong, [], 'every time up to 30 s, to the hundredth of a millisecond');
});

t.test('text in the line is escaped as JSON.stringify escapes it, and only then', async (t) => {
  // A raw backslash reaches a path only over a socket: URL parsing (inject, fetch) makes it a slash.
  const texts = ['/v1/pets', 'a\\b', 'a"b', 'tab\there', '\u00e9', '\u2028', '\u007f', ''];
  for (const [index, text] of texts.entries())
    t.equal(escaped(text), JSON.stringify(text).slice(1, -1), `text ${index}`);
});
