// listPets' cursors as the checker knows them, by its own code: base64url of "v1:<status>:<id>",
// the status the list was filtered by (empty for none) and the id the page ends at (listOrders'
// are of the same form, for lists not filtered by pet; listWebhookDeliveries' start "d1:" and
// have no status, so none is of another status). Valid cursors,
// for the checks that need one, and cursors the service must refuse: outside the parameter's
// schema, never issued, or issued for another filter.
import fc from 'fast-check';
import {
  binaryString,
  INT64_MAX,
  type OpaqueParameter,
  type Operation,
  parametersOf,
  type ValidRequest,
} from 'openapi-contract-engine';

const cursorOf = (after: bigint, status: unknown) =>
  Buffer.from(`v1:${status === undefined ? '' : String(status)}:${after}`, 'latin1').toString('base64url');

const schemaOf = (operation: Operation, name: string) =>
  parametersOf(operation).find((parameter) => parameter.in === 'query' && parameter.name === name)?.schema as
    { maxLength?: number; enum?: unknown[] } | undefined;

const statusesOf = (operation: Operation) => schemaOf(operation, 'status')?.enum ?? [];

const position = (operation: Operation) =>
  fc.tuple(fc.bigInt({ min: 1n, max: INT64_MAX }), fc.constantFrom(undefined, ...statusesOf(operation)));

export const CURSOR: OpaqueParameter = {
  valid: (operation) => position(operation).map(([after, status]) => cursorOf(after, status)),

  broken(operation: Operation, parts: fc.Arbitrary<ValidRequest>) {
    const maxLength = schemaOf(operation, 'cursor')?.maxLength ?? 256;
    const base64url = /^[A-Za-z0-9_-]*$/;
    const notIssued = fc
      .stringMatching(/^[A-Za-z0-9_-]+$/)
      .filter((text) => text.length <= maxLength && !/^[vd]1:/.test(Buffer.from(text, 'base64url').toString('latin1')));
    const ways = [
      fc
        .tuple(
          parts,
          fc.oneof(
            fc.constant(''),
            binaryString({ minLength: 1, maxLength: 20 }).filter((text) => !base64url.test(text)),
            fc.stringMatching(/^[A-Za-z0-9_-]+$/, { size: 'large' }).map((text) => text.padEnd(maxLength + 1, 'A')),
          ),
        )
        .map(([valid, text]) => ({ valid, text, rule: 'outside its schema', mentions: 'query parameter cursor' })),
      fc.tuple(parts, notIssued).map(([valid, text]) => ({
        valid,
        text,
        rule: 'not issued by the service',
        mentions: 'query parameter cursor is not a cursor this service issued',
      })),
    ];
    if (statusesOf(operation).length === 0) return ways;
    return [
      ...ways,
      fc
        .tuple(parts, position(operation))
        .filter(([valid, [, status]]) => valid.query['status'] !== status)
        .map(([valid, [after, status]]) => ({
          valid,
          text: cursorOf(after, status),
          rule: 'of another filter',
          mentions: 'query parameter cursor belongs to',
        })),
    ];
  },
};
