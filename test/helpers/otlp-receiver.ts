// An OTLP/HTTP trace receiver on 127.0.0.1 (the OpenTelemetry Collector is in neither Debian nor
// the npm registry): it takes what exporters POST to /v1/traces, responds as the OTLP
// specification says (200 with an empty ExportTraceServiceResponse in the request's encoding), and
// decodes JSON-encoded requests into spans for the tests to read.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  status: { code?: number };
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

export interface Export {
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  endpoint: string;
  exports: Export[];
  /** Every span received in JSON so far. */
  spans(): ReceivedSpan[];
  /** Waits (up to 10 s) until `enough` holds of what was received. */
  until(enough: () => boolean): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

const valueOf = (value: AnyValue) =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.boolValue ??
  value.doubleValue!;
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

export async function startOtlpReceiver(t: Test): Promise<OtlpReceiver> {
  const exports: Export[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = request.headers['content-type'] ?? '';
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      exports.push({ contentType, body: Buffer.concat(chunks) });
      if (contentType.startsWith('application/json'))
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const spans = () =>
    exports
      .filter(({ contentType }) => contentType.startsWith('application/json'))
      .flatMap(({ body }) =>
        (
          JSON.parse(body.toString()) as {
            resourceSpans: {
              resource: { attributes: KeyValue[] };
              scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes: KeyValue[] })[] }[];
            }[];
          }
        ).resourceSpans.flatMap(({ resource, scopeSpans }) =>
          scopeSpans.flatMap(({ spans }) =>
            spans.map((span) => ({
              ...span,
              parentSpanId: span.parentSpanId ?? '',
              attributes: attributesOf(span.attributes),
              resource: attributesOf(resource.attributes),
            })),
          ),
        ),
      );
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    spans,
    async until(enough) {
      const deadline = Date.now() + 10_000;
      while (!enough()) {
        if (Date.now() > deadline)
          throw new Error(`the receiver did not get what was expected in 10 s; it got ${exports.length} exports`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
