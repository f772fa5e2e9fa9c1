// Strings of a format (`type: string, format: date-time`, `uri`): the values the engine sends as valid, and
// ones the format refuses. The validator judges formats as ajv-formats defines them, and so does a
// service on Ajv; a request string of a format not generated here stops the tests when they are
// built, so that a spec cannot quietly get random text where it asked for a date.
import fc from 'fast-check';
import { createValidator } from './schema-validator.js';

// Years of four digits: what RFC 3339 writes, and what toISOString writes as they are.
const instant = fc
  .date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

const GENERATED: Record<string, fc.Arbitrary<string>> = {
  'date-time': instant,
  date: instant.map((text) => text.slice(0, 10)),
  uuid: fc.uuid(),
  // Web URLs at made-up domains, without query or fragment: valid in any URI reference, and reaching no host of
  // the deployment.
  uri: fc.webUrl({ validSchemes: ['https', 'http'] }),
};

/** Valid strings of `format`; throws for a format the engine does not generate. */
export function formatted(format: string): fc.Arbitrary<string> {
  const arbitrary = GENERATED[format];
  if (arbitrary === undefined) throw new Error(`schema-arbitraries does not generate strings of format ${format}`);
  return arbitrary;
}

let validator: ReturnType<typeof createValidator> | undefined;

/** Strings `format` refuses: a valid one cut short, or any short text. */
export function notFormatted(format: string): fc.Arbitrary<string> {
  const valid = formatted(format);
  const isOfFormat = (validator ??= createValidator()).compile({ type: 'string', format });
  return fc
    .oneof(
      valid.chain((text) => fc.nat({ max: text.length - 1 }).map((length) => text.slice(0, length))),
      fc.string({ maxLength: 30 }),
    )
    .filter((text) => !isOfFormat(text));
}
