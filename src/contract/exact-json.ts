// JSON as the engine reads responses: integers exact (a number when a double holds one exactly, else a
// bigint), so that an int64 beyond 2^53 is checked as the response wrote it.
import { parse } from 'lossless-json';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** The exact integer a decimal literal denotes, as number when safe, else bigint. */
export function exactInteger(digits: string): number | bigint {
  const asNumber = Number(digits);
  return Number.isSafeInteger(asNumber) ? asNumber : BigInt(digits);
}

const INTEGER = /^-?\d+$/;
// Up to 15 digits an integer is below 2^53, exact as a double: text without a longer run of digits
// is read by JSON.parse, several times faster than lossless-json.
const LONG_DIGITS = /\d{16}/;

/** Parses JSON text, integers exact; throws SyntaxError for text that is not JSON. */
export function parseJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return parse(text, null, (literal) => (INTEGER.test(literal) ? exactInteger(literal) : Number(literal)));
}
