// Spans over OTLP/HTTP with the OpenTelemetry SDK: a server span per request, a client span per
// database statement, named and attributed as the semantic conventions say. Loaded by src/server.ts
// only when OTEL_EXPORTER_OTLP_ENDPOINT (or its traces-only form) is set; configured by the standard
// OTEL_* variables, which the SDK and its exporter read themselves (endpoint, headers, timeout,
// compression, sampler, batch sizes, service name and resource attributes).
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FastifyRequest, RawRequestDefaultExpression } from 'fastify';
import { isUnavailable } from '../store/postgres/unavailable.js';
import type { Tracing } from './tracing.js';

export const SERVICE_NAME = 'petstore';

interface RequestSpan {
  span: Span;
  context: Context;
}

const headerGetter: TextMapGetter<RawRequestDefaultExpression['headers']> = {
  /* c8 ignore next -- part of the getter's interface; the W3C trace context propagator reads headers by name */
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
};

/** The exporter the OTLP protocol variables ask for: http/protobuf (OTLP's default) or http/json. */
export function exporterFor(env: NodeJS.ProcessEnv): SpanExporter {
  const protocol = env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] || env['OTEL_EXPORTER_OTLP_PROTOCOL'] || 'http/protobuf';
  if (protocol === 'http/protobuf') return new OtlpProtobufExporter();
  if (protocol === 'http/json') return new OtlpJsonExporter();
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (spans go over OTLP/HTTP), not "${protocol}"`,
  );
}

export interface OtelTracingOptions {
  /** The spec's info.version, as service.version. */
  serviceVersion: string;
  exporter: SpanExporter;
}

export function createOtelTracing({ serviceVersion, exporter }: OtelTracingOptions): Tracing {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override these defaults.
  const resource = resourceFromAttributes({ 'service.name': SERVICE_NAME, 'service.version': serviceVersion }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer(SERVICE_NAME, serviceVersion);
  const propagator = new W3CTraceContextPropagator();
  // The manager is this module's own, not registered globally: nothing else in the process is traced.
  const contexts = new AsyncLocalStorageContextManager().enable();
  const spans = new WeakMap<FastifyRequest, RequestSpan>();

  return {
    startRequest(request, { route, operationId }) {
      const parent = propagator.extract(ROOT_CONTEXT, request.raw.headers, headerGetter);
      const span = tracer.startSpan(
        route === '' ? request.method : `${request.method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': request.method,
            'url.path': request.url.replace(/\?.*$/s, ''),
            'url.scheme': 'http',
            ...(route === '' ? {} : { 'http.route': route }),
            ...(operationId === '' ? {} : { 'petstore.operation_id': operationId }),
          },
        },
        parent,
      );
      spans.set(request, { span, context: trace.setSpan(parent, span) });
    },

    enterRequest(request, next) {
      const started = spans.get(request);
      if (started === undefined) next();
      else contexts.with(started.context, next);
    },

    endRequest(request, reply) {
      const started = spans.get(request);
      if (started === undefined) return;
      const { span } = started;
      const status = reply.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (request.client !== '') span.setAttribute('petstore.client', request.client);
      // For a server span, only 5xx responses are errors (4xx are the client's).
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },

    traceOf(request) {
      const context = spans.get(request)?.span.spanContext();
      return context === undefined ? undefined : { traceId: context.traceId, spanId: context.spanId };
    },

    statementInstrument(statement, run) {
      const span = tracer.startSpan(
        statement,
        { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', 'db.operation.name': statement } },
        contexts.active(),
      );
      return run().then(
        (result) => {
          span.end();
          return result;
        },
        (error: Error) => {
          // The database's SQLSTATE when it responded with an error.
          span.setAttribute(
            'error.type',
            isUnavailable(error) ? 'unavailable' : String((error as { code?: unknown }).code ?? error.name),
          );
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          throw error;
        },
      );
    },

    async shutdown() {
      contexts.disable();
      await provider.shutdown();
    },
  };
}
