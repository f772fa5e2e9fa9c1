// The parts of an OpenAPI 3.1 document the engine reads, by its own code: the engine takes the
// document as an object and owes nothing to the service it checks.

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The methods that change nothing (RFC 9110, 9.2.1), as the document spells them. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['get', 'head', 'options']);

export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject {
  operationId: string;
  deprecated?: boolean;
  security?: SecurityRequirement[];
  parameters?: unknown[];
  requestBody?: { required?: boolean };
  responses: Record<string, unknown>;
  [extension: `x-${string}`]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  servers?: { url: string }[];
  security?: SecurityRequirement[];
  paths: Record<string, Partial<Record<HttpMethod, OperationObject>>>;
  components?: Record<string, unknown>;
  webhooks?: Record<string, unknown>;
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** The path as the document writes it, e.g. `/pets/{petId}`. */
  path: string;
  object: OperationObject;
}

/** A segment of a JSON Pointer (RFC 6901), escaped and unescaped. */
export const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
export const unescapePointer = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** Every operation of the document, its parameters' `$ref`s resolved. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const object = item[method];
      if (object === undefined) return [];
      const parameters = object.parameters?.map((parameter) => resolveRef(document, parameter));
      return [
        {
          operationId: object.operationId,
          method,
          path,
          object: parameters === undefined ? object : { ...object, parameters },
        },
      ];
    }),
  );
}

/** The path every server URL ends with (`/v1`): where the document's paths are served. */
export function basePathOf(document: OpenApiDocument): string {
  const paths = new Set((document.servers ?? []).map((server) => new URL(server.url).pathname.replace(/\/$/, '')));
  const [basePath = '', ...others] = paths;
  if (others.length > 0) throw new Error(`the servers have more than one base path: ${[...paths].join(', ')}`);
  return basePath;
}

/** Where a chain of local `$ref`s ends: `{ $ref: '#/components/schemas/Pet' }` gives the Pet schema. */
export function resolveRef<T>(document: OpenApiDocument, node: T): T {
  let current = node as Record<string, unknown> | undefined;
  for (const seen = new Set<string>(); typeof current?.['$ref'] === 'string';) {
    const ref = current['$ref'];
    if (!ref.startsWith('#/') || seen.has(ref))
      throw new Error(`cannot follow $ref ${ref}${seen.has(ref) ? ' (a cycle)' : ' (only #/… within the document)'}`);
    seen.add(ref);
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (at, segment) => (at as Record<string, unknown> | undefined)?.[unescapePointer(segment)],
        document,
      ) as Record<string, unknown> | undefined;
    if (current === undefined) throw new Error(`$ref ${ref} points at nothing`);
  }
  return current as T;
}

/** The parameters a document path names, in order: `/pets/{petId}` gives `['petId']`. */
export function pathParametersOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

/** The scopes (roles) `operation` needs: those its security requirement, or the document's, names. */
export function requiredScopesOf(operation: Operation, document: OpenApiDocument): readonly string[] {
  const requirements = operation.object.security ?? document.security ?? [];
  return [...new Set(requirements.flatMap((requirement) => Object.values(requirement).flat()))];
}
