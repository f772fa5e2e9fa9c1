// The OpenAPI links of a document (OpenAPI 3.1, 4.8.20): which response of which operation gives the
// parameters of another. The generators follow them, so that a valid request that needs an
// existing resource names one this run created: `createPet`'s 201 links to every operation that
// takes a `petId`, and the `ETag` of a response becomes the `If-Match` of the next request. Only
// what a link can say with `$response.body#/…` (a path parameter, or a member of the request body)
// and `$response.header.…` (a header parameter) is followed; any other expression, an
// `operationRef`, or a link to an operation or parameter that is not there stops the run with a
// message naming the link, never a link quietly ignored. A link's `requestBody` is read as an object
// whose members are each such an expression: `requestBody: {petId: $response.body#/id}` sends the
// response's `id` as the body's `petId`, its other members generated as ever.
import {
  operationsOf,
  pathParametersOf,
  resolveRef,
  unescapePointer,
  type OpenApiDocument,
} from './openapi-document.js';

export interface SpecLink {
  /** The operation whose response carries the values, and that respond's status. */
  from: string;
  status: string;
  name: string;
  /** The operation the values are for. */
  to: string;
  /** Each path parameter of `to` the link fills, with the JSON Pointer into the response's body. */
  parameters: { name: string; pointer: string[] }[];
  /** Each header parameter of `to` the link fills (lower case), with the response header it comes from (lower case). */
  headers: { name: string; from: string }[];
  /** Each top-level member of `to`'s request body the link fills, with the JSON Pointer into the response's body. */
  body: { name: string; pointer: string[] }[];
}

/** The key under which linkedValues gives a header parameter's value: `header.if-match`. */
export const HEADER_PREFIX = 'header.';
/** The key under which linkedValues gives a body member's value: `body.petId`. */
export const BODY_PREFIX = 'body.';

interface LinkObject {
  operationId?: string;
  operationRef?: string;
  parameters?: Record<string, unknown>;
  requestBody?: unknown;
}

const BODY_EXPRESSION = /^\$response\.body#((?:\/[^/]*)*)$/;
const HEADER_EXPRESSION = /^\$response\.header\.([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/;

/** The links of `spec` (named `name` in messages). */
export function linksOf(spec: OpenApiDocument, name: string): SpecLink[] {
  const operations = operationsOf(spec);
  const links: SpecLink[] = [];
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.object.responses)) {
      const linkObjects = (resolveRef(spec, response) as { links?: Record<string, LinkObject> }).links ?? {};
      for (const [linkName, unresolved] of Object.entries(linkObjects)) {
        const link = resolveRef(spec, unresolved);
        const where = `${name}: ${operation.operationId} ${status} link ${linkName}`;
        if (link.operationId === undefined) throw new Error(`${where}: only links by operationId are followed`);
        const target = operations.find((candidate) => candidate.operationId === link.operationId);
        if (target === undefined) throw new Error(`${where}: no operation ${link.operationId}`);
        const body = bodyMembersOf(link.requestBody, target, where);
        const headerNames = ((target.object as { parameters?: { name: string; in: string }[] }).parameters ?? [])
          .filter((parameter) => parameter.in === 'header')
          .map((parameter) => parameter.name.toLowerCase());
        const headers = Object.entries(link.parameters ?? {})
          .filter(([qualified]) => qualified.startsWith(HEADER_PREFIX))
          .map(([qualified, expression]) => {
            const name = qualified.slice(HEADER_PREFIX.length).toLowerCase();
            if (!headerNames.includes(name))
              throw new Error(`${where}: ${link.operationId} has no header parameter ${qualified}`);
            const match = typeof expression === 'string' ? HEADER_EXPRESSION.exec(expression) : null;
            if (match === null)
              throw new Error(
                `${where}: ${qualified}: only $response.header.… expressions fill a header, not ${JSON.stringify(expression)}`,
              );
            return { name, from: match[1]!.toLowerCase() };
          });
        const parameters = Object.entries(link.parameters ?? {})
          .filter(([qualified]) => !qualified.startsWith(HEADER_PREFIX))
          .map(([qualified, expression]) => {
            const parameter = qualified.replace(/^path\./, '');
            if (!pathParametersOf(target.path).includes(parameter))
              throw new Error(`${where}: ${link.operationId} has no path parameter ${qualified}`);
            const match = typeof expression === 'string' ? BODY_EXPRESSION.exec(expression) : null;
            if (match === null)
              throw new Error(
                `${where}: ${qualified}: only $response.body#/… expressions are followed, not ${JSON.stringify(expression)}`,
              );
            return { name: parameter, pointer: match[1]!.split('/').slice(1).map(unescapePointer) };
          });
        if (parameters.length === 0 && body.length === 0) throw new Error(`${where}: the link fills no parameter`);
        links.push({
          from: operation.operationId,
          status,
          name: linkName,
          to: target.operationId,
          parameters,
          headers,
          body,
        });
      }
    }
  }
  return links;
}

/** The header parameters of `operationId` that some of `links` fill from a response (If-Match), lower case. */
export function linkedHeadersOf(links: readonly SpecLink[], operationId: string): string[] {
  return [
    ...new Set(
      links.filter((link) => link.to === operationId).flatMap((link) => link.headers.map((header) => header.name)),
    ),
  ];
}

/**
 * The values a link takes from a response's body (path parameters, by name) and headers (header
 * parameters, as `header.<name>`), or undefined when a pointer or a header finds nothing there.
 */
export function linkedValues(
  link: SpecLink,
  body: unknown,
  headers: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> | undefined {
  const values: Record<string, unknown> = {};
  for (const { name, from } of link.headers) {
    const value = headers[from];
    if (typeof value !== 'string') return undefined;
    values[HEADER_PREFIX + name] = value;
  }
  for (const [prefix, filled] of [
    ['', link.parameters],
    [BODY_PREFIX, link.body],
  ] as const)
    for (const { name, pointer } of filled) {
      let node: unknown = body;
      for (const segment of pointer) {
        if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
        node = (node as Record<string, unknown>)[segment];
      }
      values[prefix + name] = node;
    }
  return values;
}

/** The body members a link's `requestBody` fills, each from a `$response.body#/…` expression. */
function bodyMembersOf(
  requestBody: unknown,
  target: { object: object },
  where: string,
): { name: string; pointer: string[] }[] {
  if (requestBody === undefined) return [];
  if (requestBody === null || typeof requestBody !== 'object' || Array.isArray(requestBody))
    throw new Error(`${where}: requestBody: only an object of $response.body#/… expressions is followed`);
  if ((target.object as { requestBody?: unknown }).requestBody === undefined)
    throw new Error(`${where}: the target takes no request body`);
  return Object.entries(requestBody).map(([name, expression]) => {
    const match = typeof expression === 'string' ? BODY_EXPRESSION.exec(expression) : null;
    if (match === null)
      throw new Error(
        `${where}: requestBody.${name}: only $response.body#/… expressions are followed, not ${JSON.stringify(expression)}`,
      );
    return { name, pointer: match[1]!.split('/').slice(1).map(unescapePointer) };
  });
}

/** The body members of `operationId` that some of `links` fill from a response (a reference to a resource). */
export function linkedBodyMembersOf(links: readonly SpecLink[], operationId: string): string[] {
  return [...new Set(links.filter((link) => link.to === operationId).flatMap((link) => link.body.map((m) => m.name)))];
}
