// Reads openapi.yaml once at start-up and tells the service what it needs to know of it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { stringify } from 'lossless-json';
import { PROJECT_ROOT } from '../project-root.js';
import { exactInteger } from '../validation/int64.js';
import { unescapePointer } from '../validation/json-pointer.js';
import { parseJson } from '../validation/strict-json.js';

export const DEFAULT_SPEC_PATH = join(PROJECT_ROOT, 'openapi.yaml');
/**
 * The same document as JSON, which `npm run build` writes beside the compiled code (dist/openapi.json,
 * scripts/build-spec.ts): JSON parses in under 1 ms, the YAML takes 25–45 ms of a cold start.
 * Run from src/ (tsx, the tests) there is none, and openapi.yaml is read.
 */
export const BUILT_SPEC_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject {
  operationId: string;
  deprecated?: boolean;
  security?: SecurityRequirement[];
  requestBody?: { required?: boolean };
  responses: Record<string, unknown>;
  [extension: `x-${string}`]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  security?: SecurityRequirement[];
  paths: Record<string, Partial<Record<HttpMethod, OperationObject>>>;
  components: {
    securitySchemes?: Record<string, { type: string; scheme?: string }>;
    schemas: Record<string, unknown> & { Error: { properties: { code: { enum: string[] } } } };
  };
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** The path as the spec writes it, e.g. `/pets/{petId}`. */
  path: string;
  object: OperationObject;
}

/**
 * Reads a spec with every integer exact: one a double holds exactly is a number, a larger one (an
 * int64 bound such as 9223372036854775807) a bigint, as request values are (src/validation/int64.ts).
 */
export function loadSpec(path: string = DEFAULT_SPEC_PATH): OpenApiDocument {
  const text = readFileSync(path, 'utf8');
  // Parsed YAML is kept per text (the tools and tests read the same released versions many times,
  // ~10 ms each); every caller gets a copy of its own to edit.
  const key = `${path.endsWith('.json') ? 'json' : 'yaml'}\n${text}`;
  let parsed = parsedSpecs.get(key);
  if (parsed === undefined) {
    parsed = (path.endsWith('.json') ? parseJson(text) : parseYaml(path, text)) as OpenApiDocument;
    if (parsedSpecs.size === CACHED_SPECS) parsedSpecs.delete(parsedSpecs.keys().next().value!);
    parsedSpecs.set(key, parsed);
  }
  return structuredClone(parsed);
}
const CACHED_SPECS = 16;
const parsedSpecs = new Map<string, OpenApiDocument>();

/**
 * Where the project's own YAML documents (openapi.yaml, docs/releases/) are kept as JSON once parsed,
 * per content: parsing openapi.yaml took 100-170 ms of every test process and tool that read it,
 * and loading the yaml package ~25 ms more; the JSON takes 1-2 ms.
 */
export const SPEC_CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'petstore-specs');

function parseYaml(path: string, text: string): unknown {
  const name = relative(PROJECT_ROOT, path);
  // Only the project's own files: a test's or a tool's copy elsewhere is parsed, not kept.
  const cached = !name.startsWith('..') && !name.startsWith('.tap') ? name.replace(/[^A-Za-z0-9.-]/g, '_') : undefined;
  const file =
    cached === undefined
      ? undefined
      : join(SPEC_CACHE_DIR, `${cached}.${createHash('sha256').update(text).digest('hex')}.json`);
  if (file !== undefined) {
    try {
      return parseJson(readFileSync(file, 'utf8'));
    } catch {
      // Not kept yet, or replaced by another process meanwhile: parsed below.
    }
  }
  // Loaded only on a miss: the package is 80 modules.
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const parsed = exactIntegers(parse(text, { intAsBigInt: true }));
  if (file !== undefined) keep(file, `${cached!}.`, parsed);
  return parsed;
}

/**
 * A parsed spec as JSON that reads back the same (parseJson), integers beyond a double's exact
 * range written as they are (lossless-json); undefined when YAML said what JSON cannot (.inf, .nan).
 */
export function specAsJson(spec: unknown): string | undefined {
  const json = stringify(spec) as string;
  return isDeepStrictEqual(parseJson(json), spec) ? json : undefined;
}

/**
 * Writes the parse's JSON (whole, or not at all), in place of the older ones of the same file; nothing when it cannot.
 */
function keep(file: string, prefix: string, parsed: unknown): void {
  const json = specAsJson(parsed);
  // Such a document is parsed each time.
  if (json === undefined) return;
  try {
    mkdirSync(SPEC_CACHE_DIR, { recursive: true });
    for (const old of readdirSync(SPEC_CACHE_DIR))
      if (old.startsWith(prefix)) rmSync(join(SPEC_CACHE_DIR, old), { force: true });
    const temporary = `${file}.${process.pid}`;
    writeFileSync(temporary, json);
    renameSync(temporary, file);
  } catch {
    // A read-only install: the document is parsed each time.
  }
}

function exactIntegers(node: unknown): unknown {
  if (typeof node === 'bigint') return exactInteger(String(node));
  if (Array.isArray(node)) return node.map(exactIntegers);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, exactIntegers(value)]));
}

/** The spec the service runs on: the build's JSON copy of openapi.yaml when there is one, else openapi.yaml. */
export function loadServedSpec(built: string = BUILT_SPEC_PATH): OpenApiDocument {
  return loadSpec(existsSync(built) ? built : DEFAULT_SPEC_PATH);
}

/** Every operation of the spec, its parameters given as objects (a `$ref` to components/parameters followed). */
export function operationsOf(spec: OpenApiDocument): Operation[] {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const object = item[method];
      return object === undefined
        ? []
        : [{ operationId: object.operationId, method, path, object: withParameters(spec, object) }];
    }),
  );
}

function withParameters(spec: OpenApiDocument, object: OperationObject): OperationObject {
  const parameters = (object as { parameters?: unknown[] }).parameters;
  if (
    parameters === undefined ||
    !parameters.some((parameter) => typeof (parameter as { $ref?: unknown }).$ref === 'string')
  )
    return object;
  return { ...object, parameters: parameters.map((parameter) => resolveRef(spec, parameter)) } as OperationObject;
}

/** The path every server URL ends with (`/v1`); the routes are mounted under it. */
export function basePathOf(spec: OpenApiDocument): string {
  const paths = new Set(spec.servers.map((server) => new URL(server.url).pathname.replace(/\/$/, '')));
  const [basePath, ...others] = paths;
  if (basePath === undefined || others.length > 0) {
    throw new Error(`openapi.yaml: every server must share one base path; found ${[...paths].join(', ') || 'none'}`);
  }
  return basePath;
}

export function errorCodesOf(spec: OpenApiDocument): ReadonlySet<string> {
  return new Set(spec.components.schemas.Error.properties.code.enum);
}

/** Where a chain of local `$ref`s in `document` ends: `{ $ref: '#/components/schemas/Pet' }` gives the Pet schema. */
export function resolveRef<T>(document: OpenApiDocument, node: T): T {
  let current = node as Record<string, unknown> | undefined;
  for (const seen = new Set<string>(); typeof current?.['$ref'] === 'string';) {
    const ref = current['$ref'];
    if (!ref.startsWith('#/') || seen.has(ref))
      throw new Error(
        `openapi.yaml: cannot follow $ref ${ref}${seen.has(ref) ? ' (a cycle)' : ' (only #/… within the document)'}`,
      );
    seen.add(ref);
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (at, segment) => (at as Record<string, unknown> | undefined)?.[unescapePointer(segment)],
        document,
      ) as Record<string, unknown> | undefined;
    if (current === undefined) throw new Error(`openapi.yaml: $ref ${ref} points at nothing`);
  }
  return current as T;
}

/** The parameters a spec path names, in order: `/pets/{petId}` gives `['petId']`. */
export function pathParametersOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

/** Fastify's form of a spec path: `/pets/{petId}` becomes `/pets/:petId`. */
export function toRouteUrl(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
