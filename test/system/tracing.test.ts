// Spans over OTLP/HTTP, received by an OTLP receiver on 127.0.0.1: a server span per request, a
// child of the caller's span when a traceparent came in, and a client span per PostgreSQL statement
// below it, with the semantic conventions' attributes; the request line carries the same ids.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { createOtelTracing, exporterFor } from '../../src/tracing/otel-tracing.js';
import { createMemoryPetStore } from '../../src/store/memory-pet-store.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { createPostgresPetStore } from '../../src/store/postgres/postgres-pet-store.js';
import { API_KEY, AUTH, buildTestApp, postPet } from '../helpers/build-app.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { startTestDatabase } from '../helpers/postgres.js';
import { startServer } from '../helpers/server-process.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** Tracing as src/server.ts makes it, from the standard variables, exporting to `receiver` in JSON. */
function tracingTo(t: Parameters<typeof startOtlpReceiver>[0], receiver: OtlpReceiver) {
  const saved = { ...process.env };
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '20',
    OTEL_SERVICE_NAME: 'petstore-test',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging',
  });
  const tracing = createOtelTracing({ serviceVersion: '1.0.0', exporter: exporterFor(process.env) });
  process.env = saved;
  t.teardown(() => tracing.shutdown());
  return tracing;
}

function logSink() {
  const lines: Record<string, string>[] = [];
  return {
    lines,
    stream: new Writable({ write: (chunk, _encoding, done) => void (lines.push(JSON.parse(String(chunk))), done()) }),
  };
}

const serverSpans = (spans: ReceivedSpan[]) => spans.filter(({ kind }) => kind === SERVER);

t.test(
  "a server span per request, child of the caller's span, with the semantic conventions' attributes",
  async (t) => {
    const receiver = await startOtlpReceiver(t);
    const tracing = tracingTo(t, receiver);
    const { lines, stream } = logSink();
    const store = createMemoryPetStore();
    const { app } = await buildTestApp(t, {
      tracing,
      logger: { level: 'info', stream },
      apiKeys: [{ client: 'mobile-app', key: API_KEY }],
      store: { ...store, get: (id) => (id === 13 ? Promise.reject(new Error('boom')) : store.get(id)) },
    });
    await app.inject(postPet({ name: 'Rex', categoryId: 1 }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` }));
    await app.inject({ method: 'GET', url: '/v1/pets?limit=5', headers: AUTH });
    await app.inject({ method: 'GET', url: '/v1/pets/13', headers: AUTH });
    await app.inject({ method: 'GET', url: '/v1/elsewhere', headers: { traceparent: 'not-a-traceparent' } });
    await receiver.until(() => serverSpans(receiver.spans()).length === 4);
    const byName = new Map(
      serverSpans(receiver.spans()).map((span) => [
        `${span.name} ${span.attributes['http.response.status_code']}`,
        span,
      ]),
    );
    t.same([...byName.keys()].sort(), ['GET /v1/pets 200', 'GET /v1/pets/{petId} 500', 'GET 404', 'POST /v1/pets 201']);

    const created = byName.get('POST /v1/pets 201')!;
    t.equal(created.traceId, TRACE_ID, "the caller's trace");
    t.equal(created.parentSpanId, PARENT_ID, "a child of the caller's span");
    t.same(created.attributes, {
      'http.request.method': 'POST',
      'url.path': '/v1/pets',
      'url.scheme': 'http',
      'http.route': '/v1/pets',
      'petstore.operation_id': 'createPet',
      'http.response.status_code': 201,
      'petstore.client': 'mobile-app',
    });
    t.match(
      created.resource,
      { 'service.name': 'petstore-test', 'service.version': '1.0.0', 'deployment.environment.name': 'staging' },
      'the standard variables name the service',
    );

    const read = byName.get('GET /v1/pets 200')!;
    t.equal(read.parentSpanId, '', 'no traceparent: a root span');
    t.not(read.traceId, TRACE_ID);
    t.equal(read.attributes['url.path'], '/v1/pets', 'no query');
    t.notOk(read.status.code === ERROR, 'a success is no error');

    const fault = byName.get('GET /v1/pets/{petId} 500')!;
    t.equal(fault.status.code, ERROR, 'a 5xx is an error of the server span');
    t.equal(fault.attributes['error.type'], '500');

    const none = byName.get('GET 404')!;
    t.equal(
      none.attributes['http.route'],
      undefined,
      'no route matched: no http.route, and the span is named by its method alone',
    );
    t.equal(none.attributes['petstore.client'], undefined);
    t.equal(none.parentSpanId, '', 'an invalid traceparent is ignored');

    const logged = lines.filter((line) => line['msg'] === 'request completed');
    t.equal(logged.length, 4);
    t.same(
      logged.map(({ trace_id, span_id }) => `${trace_id}-${span_id}`),
      [created, read, fault, none].map(({ traceId, spanId }) => `${traceId}-${spanId}`),
      "each request line carries its span's trace and span ids",
    );
  },
);

t.test(
  'a request tracing never saw (no span) runs, ends and has no trace; a failed statement without a code names its error',
  async (t) => {
    const receiver = await startOtlpReceiver(t);
    const tracing = tracingTo(t, receiver);
    const unseen = {} as Parameters<typeof tracing.traceOf>[0];
    let ran = false;
    tracing.enterRequest(unseen, () => void (ran = true));
    t.ok(ran, 'the request goes on, outside any span');
    tracing.endRequest(unseen, { statusCode: 200 } as Parameters<typeof tracing.endRequest>[1]);
    t.equal(tracing.traceOf(unseen), undefined);
    await t.rejects(
      tracing.statementInstrument('get-pet', () => Promise.reject(new TypeError('no code'))),
      TypeError,
    );
    await receiver.until(() => receiver.spans().length === 1);
    t.same(
      receiver.spans().map(({ name, attributes }) => [name, attributes['error.type']]),
      [['get-pet', 'TypeError']],
      'its name instead of a SQLSTATE',
    );
  },
);

t.test("statements of the PostgreSQL store are client spans below the request's span", async (t) => {
  const database = await startTestDatabase(t);
  if (database === undefined) return;
  const receiver = await startOtlpReceiver(t);
  const tracing = tracingTo(t, receiver);
  const store = createPostgresPetStore(
    { connectionString: await database.freshSchema() },
    { instrument: tracing.statementInstrument },
  );
  t.teardown(() => store.close());
  await migrate(store.pool);
  await store.readEpoch();
  const { app } = await buildTestApp(t, { tracing, store });
  t.equal(
    (await app.inject(postPet({ name: 'Rex', categoryId: 1 }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` })))
      .statusCode,
    201,
  );
  t.equal((await app.inject(postPet({ name: 'Tom', categoryId: 1 }, { 'idempotency-key': 'k' }))).statusCode, 201);
  t.equal((await app.inject({ method: 'GET', url: '/v1/pets?status=sold', headers: AUTH })).statusCode, 200);
  await receiver.until(() => receiver.spans().length === 6);
  const spans = receiver.spans();
  const statements = spans.filter(({ kind }) => kind === CLIENT);
  t.same(statements.map(({ name }) => name).sort(), ['create-pet', 'create-pet-once', 'list-pets-by-status']);
  for (const statement of statements) {
    const parent = spans.find(({ spanId }) => spanId === statement.parentSpanId);
    t.equal(parent?.kind, SERVER, `${statement.name}: a child of its request's server span`);
    t.equal(parent?.traceId, statement.traceId);
    t.same(statement.attributes, { 'db.system.name': 'postgresql', 'db.operation.name': statement.name });
  }
  t.equal(statements.find(({ name }) => name === 'create-pet')!.traceId, TRACE_ID, "in the caller's trace");

  // A failed statement's span says why: the database out of reach, or the SQLSTATE of its error.
  const unreachable = createPostgresPetStore(
    { connectionString: 'postgres://127.0.0.1:1/none' },
    { instrument: tracing.statementInstrument },
  );
  t.teardown(() => unreachable.close());
  await t.rejects(unreachable.get(1));
  const unmigrated = createPostgresPetStore(
    { connectionString: await database.freshSchema() },
    { instrument: tracing.statementInstrument },
  );
  t.teardown(() => unmigrated.close());
  await t.rejects(unmigrated.get(1), /relation "\w+" does not exist/);
  await receiver.until(
    () => receiver.spans().filter(({ kind, status }) => kind === CLIENT && status.code === ERROR).length === 2,
  );
  const failed = receiver.spans().filter(({ status }) => status.code === ERROR);
  t.same(failed.map(({ attributes }) => attributes['error.type']).sort(), ['42P01', 'unavailable']);
});

t.test('the exporter speaks OTLP/HTTP: protobuf unless http/json is asked for', async (t) => {
  const { OTLPTraceExporter: Protobuf } = await import('@opentelemetry/exporter-trace-otlp-proto');
  const { OTLPTraceExporter: Json } = await import('@opentelemetry/exporter-trace-otlp-http');
  t.ok(exporterFor({}) instanceof Protobuf, "OTLP's default, http/protobuf");
  t.ok(exporterFor({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }) instanceof Json);
  t.ok(
    exporterFor({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    }) instanceof Protobuf,
    'the traces-only variable first',
  );
  t.throws(
    () => exporterFor({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json .* not "grpc"/,
  );
  t.throws(
    () => exporterFor({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }),
    /not "grpc"/,
    'the traces-only variable first',
  );
});

t.test(
  'the running service: no tracing code without an endpoint; with one, spans over OTLP/HTTP in protobuf, flushed at shutdown',
  async (t) => {
    const receiver = await startOtlpReceiver(t);
    const recorder = fileURLToPath(new URL('../helpers/record-modules.mjs', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'petstore-modules-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const run = async (name: string, env: Record<string, string>) => {
      const moduleLog = join(dir, name);
      const server = await startServer({ API_KEYS: API_KEY, MODULE_LOG: moduleLog, ...env }, process.cwd(), [
        `--import=${pathToFileURL(recorder).href}`,
      ]);
      const response = await fetch(`http://127.0.0.1:${server.port}/v1/pets/1`, {
        headers: { ...AUTH, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      });
      t.equal(response.status, 404);
      server.child.kill('SIGTERM');
      await server.exited;
      return { modules: readFileSync(moduleLog, 'utf8'), output: server.output() };
    };

    const off = await run('off', {});
    t.match(off.modules, '/src/server.js', 'the log records what the server imports');
    t.notMatch(off.modules, /otel-tracing|@opentelemetry/, 'no tracing code is loaded');
    t.match(off.output, `"trace_id":"${TRACE_ID}"`, 'the request line carries the trace id all the same');
    t.equal(receiver.exports.length, 0);

    // The batch processor's default delay is 5 s: the span arrives because shutdown flushes it.
    const on = await run('on', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    t.match(on.modules, /otel-tracing/);
    t.match(on.modules, /@opentelemetry\/exporter-trace-otlp-proto/);
    t.match(on.output, 'spans are exported over OTLP/HTTP');
    await receiver.until(() => receiver.exports.length > 0);
    const [exported] = receiver.exports;
    t.equal(exported!.contentType, 'application/x-protobuf', "OTLP's default encoding");
    t.ok(exported!.body.includes(Buffer.from(TRACE_ID, 'hex')), "the caller's trace id, as protobuf bytes");
    t.ok(exported!.body.includes(Buffer.from('GET /v1/pets/{petId}')), 'the server span, named by method and route');
    t.ok(exported!.body.includes(Buffer.from('petstore')), 'the service name');
    const logged = /"trace_id":"([0-9a-f]{32})","span_id":"([0-9a-f]{16})"/.exec(on.output);
    t.equal(logged?.[1], TRACE_ID);
    t.ok(exported!.body.includes(Buffer.from(logged![2]!, 'hex')), "the line's span id is the exported span's");
  },
);
