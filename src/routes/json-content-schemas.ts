// fastify-openapi-glue gives Fastify each body and response schema keyed by media type, as the
// spec writes it. Fastify then picks the schema on every request: it parses the reply's
// Content-Type and looks the media type up as a freshly made property key (this cost ~3,600
// instructions per create and ~2,400 per get; docs/performance/earlier-findings.md, "Earlier findings"). The service
// reads and writes only application/json, so a map holding just that type is replaced by its
// schema: the same validation and serialization, with nothing to choose per request.
import type { RouteOptions } from 'fastify';

const JSON_TYPE = 'application/json';

interface ContentMap {
  content?: Record<string, { schema?: unknown }>;
}

/** onRoute hook: body and response schemas whose only media type is application/json, used directly. */
export function collapseJsonContent(routeOptions: RouteOptions): void {
  const schema = routeOptions.schema as { body?: unknown; response?: Record<string, unknown> } | undefined;
  if (schema?.body !== undefined) schema.body = jsonSchemaOf(schema.body);
  for (const status in schema?.response) schema!.response![status] = jsonSchemaOf(schema!.response![status]);
}

function jsonSchemaOf(part: unknown): unknown {
  const content = (part as ContentMap).content;
  if (content === undefined) return part;
  const types = Object.keys(content);
  const only = types.length === 1 && types[0] === JSON_TYPE ? content[JSON_TYPE]!.schema : undefined;
  return only ?? part;
}
