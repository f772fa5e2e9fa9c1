// Requests whose body breaks one rule: a value outside its schema, malformed JSON, a repeated key,
// bytes that are not UTF-8, another media type, or no body where one is required.
import fc from 'fast-check';
import { bodySchemaOf, validation, type ApiRequest, type BrokenRequest, type ValidRequest } from './request-parts.js';
import type { Operation } from './openapi-document.js';
import { matching, toJson, type BrokenValue, type Schema } from './schema-arbitraries.js';

export interface BodyBreakingTools {
  /** A request of `operation` to `url` with this body and these headers. */
  request(
    operation: Operation,
    url: string,
    payload: string | Buffer | undefined,
    headers?: Record<string, string>,
  ): ApiRequest;
  /** Values that break `schema` in one place. */
  brokenValue(schema: Schema): fc.Arbitrary<BrokenValue>;
}

export function brokenBodies(
  operation: Operation,
  { schema, required }: { schema: Schema; required: boolean },
  parts: fc.Arbitrary<ValidRequest>,
  { request, brokenValue }: BodyBreakingTools,
): fc.Arbitrary<BrokenRequest>[] {
  const send = (valid: ValidRequest, payload: string | Buffer | undefined, headers: Record<string, string> = {}) =>
    request(operation, valid.request.url, payload, headers);
  const validText = (valid: ValidRequest) => String(valid.request.payload);
  const ways: fc.Arbitrary<BrokenRequest>[] = [
    fc.tuple(parts, brokenValue(schema)).map(([valid, broken]) => {
      const field = ['body', ...broken.path].join('.');
      const mentions =
        broken.unknownField !== undefined
          ? `unknown field '${broken.unknownField}'`
          : broken.missingField !== undefined
            ? `${field}.${broken.missingField} is required`
            : field;
      return {
        request: send(valid, toJson(broken.value)),
        rule: `body ${broken.rule} at ${field}`,
        expect: validation(mentions),
      };
    }),
    fc.tuple(parts, fc.nat(), fc.constantFrom('', '}', ',', 'x', ']', '{}', '"')).map(([valid, cut, tail]) => {
      // A strict prefix of an object's JSON text never closes the object, so it is never JSON.
      const text = validText(valid);
      const malformed = tail === '' ? text.slice(0, 1 + (cut % (text.length - 1))) : text + tail;
      return {
        request: send(valid, malformed),
        rule: 'malformed JSON',
        expect: { status: 400, kind: 'invalidJson' },
      };
    }),
    parts
      .filter((valid) => Object.keys(valid.body as object).length > 0)
      .map((valid) => {
        const body = valid.body as Record<string, unknown>;
        const [name] = Object.keys(body);
        const repeated = `{${JSON.stringify(name)}:${toJson(body[name!])},${validText(valid).slice(1)}`;
        return {
          request: send(valid, repeated),
          rule: 'repeated JSON key',
          expect: { status: 400, kind: 'invalidJson' },
        };
      }),
    fc.tuple(parts, fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([valid, bytes]) => ({
      request: send(
        valid,
        Buffer.concat([
          Buffer.from(validText(valid).slice(0, -1)),
          Buffer.from([0xff]),
          Buffer.from(bytes),
          Buffer.from('}'),
        ]),
      ),
      rule: 'bytes that are not UTF-8',
      expect: { status: 400, kind: 'notUtf8' },
    })),
    fc
      .tuple(
        parts,
        fc
          .oneof(
            fc.constantFrom(
              'text/plain',
              'application/xml',
              'application/x-www-form-urlencoded',
              'multipart/form-data',
              'application/json-patch+json',
              'application/json',
              'application/merge-patch+json',
              `${bodySchemaOf(operation)!.mediaType}; charset=latin1`,
              `${bodySchemaOf(operation)!.mediaType}; charset=utf-16`,
            ),
            matching(/^[a-z]{1,10}\/[a-z+.-]{1,12}$/),
          )
          .filter((type) => type !== bodySchemaOf(operation)!.mediaType),
      )
      .map(([valid, type]) => ({
        request: send(valid, validText(valid), { 'content-type': type }),
        rule: `Content-Type ${type}`,
        expect: { status: 415, kind: 'unsupportedMediaType' },
      })),
  ];
  if (required) {
    ways.push(
      parts.map((valid) => ({
        request: send(valid, undefined),
        rule: 'no body',
        expect: { status: 400, kind: 'bodyRequired' },
      })),
    );
  }
  return ways;
}
