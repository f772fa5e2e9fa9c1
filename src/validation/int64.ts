// int64 values travel as number when they fit a double exactly and as bigint otherwise,
// so that every value of the signed 64-bit range round-trips unchanged.
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_RANGE = `an integer from ${INT64_MIN} to ${INT64_MAX}`;

export function isInt64(value: unknown): value is number | bigint {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** The exact integer a decimal literal denotes, as number when safe, else bigint. */
export function exactInteger(digits: string): number | bigint {
  const asNumber = Number(digits);
  return Number.isSafeInteger(asNumber) ? asNumber : BigInt(digits);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
// Past this many digits a value is far outside int64; its exact value is never needed.
const MAX_EXACT_DIGITS = 40;

/**
 * Reads a JSON number literal without losing anything: integers (also when written
 * as 1.0 or 1e3) keep their exact value; other numbers become doubles, except that a
 * fraction which a double would round to an integer ("1.0000000000000001") becomes
 * NaN, so that it can never pass as that integer.
 */
export function parseJsonNumber(literal: string): number | bigint {
  const match = DECIMAL.exec(literal);
  if (match === null) return Number.NaN;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  let mantissa = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(exponentText) - fraction.length;
  if (mantissa === '') return 0;
  while (exponent < 0 && mantissa.endsWith('0')) {
    mantissa = mantissa.slice(0, -1);
    exponent += 1;
  }
  if (exponent < 0) {
    const value = Number(literal);
    return Number.isInteger(value) ? Number.NaN : value;
  }
  if (mantissa.length + exponent > MAX_EXACT_DIGITS) return Number(literal);
  return exactInteger(sign + mantissa + '0'.repeat(exponent));
}
