// Requests of each operation that break exactly one rule, with the response each must get: a
// parameter or header outside its schema, a parameter repeated or unknown, a value only the
// service gives but did not (a plug-in's), a body where none is taken, or a broken body
// (broken-bodies.ts).
import fc from 'fast-check';
import { brokenBodies } from './broken-bodies.js';
import { notNumber, brokenNumbers } from './number-arbitraries.js';
import { binaryString } from './code-points.js';
import type { Operation } from './openapi-document.js';
import { perOperation, type RequestBuilder } from './request-builder.js';
import {
  asText,
  asTextParts,
  bodySchemaOf,
  fitsUrl,
  generatedQuery,
  headerText,
  inHeader,
  inPath,
  inQuery,
  notDecimal,
  otherLinkQuery,
  validation,
  where,
  type BrokenRequest,
  type Parameter,
  type ValidRequest,
} from './request-parts.js';
import type { BrokenValue } from './schema-arbitraries.js';

export function brokenRequests(
  builder: RequestBuilder,
  validRequest: (operation: Operation) => fc.Arbitrary<ValidRequest>,
) {
  const { request, buildUrl, patternOf, parameterValue, brokenValue, query: knowledge } = builder;
  const opaqueParameters = knowledge.opaque ?? {};
  /** Requests of one operation that break exactly one rule, with the response each must get. */
  const brokenRequest = perOperation(function brokenRequest(operation: Operation): fc.Arbitrary<BrokenRequest> {
    const declared = new Set(inQuery(operation).map((parameter) => parameter.name));
    const bodySchema = bodySchemaOf(operation);
    const parts = validRequest(operation);
    const ways: fc.Arbitrary<BrokenRequest>[] = [];
    const textOf = (valid: ValidRequest) => ({ ...asTextParts(valid), payload: valid.request.payload });

    for (const parameter of [
      ...inPath(operation),
      ...generatedQuery(operation, knowledge),
      ...otherLinkQuery(operation, knowledge),
    ]) {
      const brokenText = brokenParameterText(parameter, builder);
      // A string parameter that allows any text has nothing to break.
      if (brokenText === undefined) continue;
      ways.push(
        fc.tuple(parts, brokenText).map(([valid, { text, rule }]) => {
          const { path, query, payload } = textOf(valid);
          if (parameter.in === 'path') path[parameter.name] = text;
          const otherQuery = query.filter(([name]) => name !== parameter.name);
          const brokenQuery: [string, string][] =
            parameter.in === 'query' ? [...otherQuery, [parameter.name, text]] : query;
          return {
            request: request(operation, buildUrl(operation, path, brokenQuery), payload),
            rule: `${where(parameter)} ${rule}`,
            expect: validation(where(parameter)),
          };
        }),
      );
    }
    for (const parameter of inHeader(operation)) {
      const pattern = patternOf(parameter);
      const name = parameter.name.toLowerCase();
      ways.push(
        fc
          .tuple(
            parts,
            headerText.filter((text) => !pattern.test(text)),
          )
          .map(([valid, text]) => ({
            request: { ...valid.request, headers: { ...valid.request.headers, [name]: text } },
            rule: `header ${parameter.name} outside its schema`,
            expect: validation(`header ${name}`),
          })),
      );
    }
    for (const parameter of inQuery(operation)) {
      const opaque = opaqueParameters[parameter.name];
      if (opaque === undefined) continue;
      for (const broken of opaque.broken(operation, parts)) {
        ways.push(
          broken.map(({ valid, text, rule, mentions }) => {
            const { path, query } = asTextParts(valid);
            const url = buildUrl(operation, path, [...query, [parameter.name, text]]);
            return {
              request: request(operation, url, valid.request.payload),
              rule: `${parameter.name} ${rule}`,
              expect: validation(mentions),
            };
          }),
        );
      }
    }
    for (const parameter of inQuery(operation)) {
      const value = opaqueParameters[parameter.name]?.valid(operation) ?? parameterValue(parameter);
      ways.push(
        fc.tuple(parts, value, value).map(([valid, first, second]) => {
          const { path, query, payload } = textOf(valid);
          const repeated: [string, string][] = [
            ...query.filter(([name]) => name !== parameter.name),
            [parameter.name, asText(first)],
            [parameter.name, asText(second)],
          ];
          return {
            request: request(operation, buildUrl(operation, path, repeated), payload),
            rule: `${where(parameter)} repeated`,
            expect: validation(`${where(parameter)} must be given at most once`),
          };
        }),
      );
    }
    const unknownName = fc
      .oneof(binaryString({ minLength: 1, maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'id', 'offset'))
      .filter((name) => !declared.has(name));
    ways.push(
      fc.tuple(parts, unknownName, binaryString({ maxLength: 5 })).map(([valid, name, value]) => {
        const { path, query, payload } = textOf(valid);
        return {
          request: request(operation, buildUrl(operation, path, [...query, [name, value]]), payload),
          rule: `unknown query parameter ${name}`,
          expect: validation(`unknown query parameter '${name}'`),
        };
      }),
    );

    if (bodySchema === undefined) {
      ways.push(
        fc.tuple(parts, fc.jsonValue({ maxDepth: 2 })).map(([valid, body]) => ({
          request: request(operation, valid.request.url, JSON.stringify(body)),
          rule: 'body sent to an operation that takes none',
          expect: { status: 400, kind: 'bodyNotAllowed' },
        })),
      );
    } else {
      ways.push(...brokenBodies(operation, bodySchema, parts, { request, brokenValue }));
    }
    return fc.oneof(...ways);
  });

  return brokenRequest;
}

/** Text that breaks a path or query parameter's schema; undefined when any text is allowed. */
function brokenParameterText(
  parameter: Parameter,
  { resolve, brokenValue }: Pick<RequestBuilder, 'resolve' | 'brokenValue'>,
): fc.Arbitrary<{ text: string; rule: string }> | undefined {
  const schema = resolve(parameter.schema);
  if (schema.type === 'integer') {
    const outOfRange = brokenValue(schema).filter((broken) => typeof broken.value === 'bigint');
    return fc.oneof(
      notDecimal.map((text) => ({ text, rule: 'not a decimal integer' })),
      outOfRange.map((broken) => ({ text: String(broken.value), rule: broken.rule })),
    );
  }
  if (schema.type === 'number')
    return fc.oneof(
      notNumber.map((text) => ({ text, rule: 'not a number' })),
      ...brokenNumbers(schema).map(([rule, arbitrary]) => arbitrary.map((value) => ({ text: String(value), rule }))),
    );
  if (schema.type === 'boolean')
    return binaryString({ maxLength: 8 })
      .filter((text) => text !== 'true' && text !== 'false')
      .map((text) => ({ text, rule: 'not true or false' }));
  const allowed = schema.enum;
  if (allowed !== undefined) {
    return binaryString({ maxLength: 12 })
      .filter((text) => !allowed.includes(text))
      .map((text) => ({ text, rule: 'not in enum' }));
  }
  if (schema.type === 'string') {
    // As text, a string cannot be of the wrong JSON type: only its format, length and pattern can be broken.
    if (
      (schema.minLength ?? 0) === 0 &&
      schema.maxLength === undefined &&
      schema.pattern === undefined &&
      schema.format === undefined
    )
      return undefined;
    return brokenValue(schema)
      .filter(
        (broken): broken is BrokenValue & { value: string } =>
          typeof broken.value === 'string' && fitsUrl(broken.value),
      )
      .map((broken) => ({ text: broken.value, rule: broken.rule }));
  }
  throw new Error(`${parameter.name}: only integer, number, boolean, enum and string parameters are generated`);
}
