// JSON parsing that loses nothing: every repeated key is an error (JSON.parse keeps the last one,
// lossless-json lets an equal repeat through), and numbers a double cannot hold exactly keep their
// exact value. Native JSON.parse does the work when every number is a short plain integer, which
// is nearly every body; lossless-json takes the rest.
import { parse } from 'lossless-json';
import { parseJsonNumber } from './int64.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
// Up to 15 digits, a plain integer is below 2^53 and so exact as a double.
const MAX_PLAIN_DIGITS = 15;

const isDigit = (code: number) => code >= DIGIT_0 && code <= DIGIT_9;

/** Parses JSON text; throws SyntaxError for text that is not JSON or repeats a key in an object. */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return inspect(text) ? value : parse(text, null, parseJsonNumber);
}

/**
 * Walks text that JSON.parse accepted. Throws on a repeated key; returns whether every number is
 * a plain integer of at most 15 digits, so that JSON.parse's value is exact.
 */
function inspect(text: string): boolean {
  // One entry per open object (its keys so far) or array (null).
  const open: (string[] | Set<string> | null)[] = [];
  // Without a backslash anywhere, every string ends at the next quote: found natively, not char by char.
  const plain = !text.includes('\\');
  let expectKey = false;
  let exact = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      let escaped = false;
      if (plain) {
        i = text.indexOf('"', i + 1);
      } else {
        for (i++; text.charCodeAt(i) !== QUOTE; i++) {
          if (text.charCodeAt(i) === BACKSLASH) {
            escaped = true;
            i++;
          }
        }
      }
      if (expectKey) {
        // "\u0061" and "a" are the same key.
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        open[open.length - 1] = withKey(open[open.length - 1]!, key, start);
        expectKey = false;
      }
    } else if (code === OPEN_OBJECT) {
      open.push([]);
      expectKey = true;
    } else if (code === OPEN_ARRAY) {
      open.push(null);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
      expectKey = false;
    } else if (code === COMMA) {
      expectKey = open[open.length - 1] !== null;
    } else if (code === MINUS || isDigit(code)) {
      const start = code === MINUS ? i + 1 : i;
      while (i + 1 < text.length && isDigit(text.charCodeAt(i + 1))) i++;
      const next = text.charCodeAt(i + 1);
      // A fraction or an exponent follows: the rest of the literal is consumed as ordinary characters.
      if (i + 1 - start > MAX_PLAIN_DIGITS || next === 0x2e || next === 0x65 || next === 0x45) exact = false;
    }
  }
  return exact;
}

// Objects with few keys, nearly all of them, are searched as a list: no hashing of every key.
const MAX_LISTED_KEYS = 8;

function withKey(keys: string[] | Set<string>, key: string, position: number): string[] | Set<string> {
  if (Array.isArray(keys) ? keys.includes(key) : keys.has(key)) {
    throw new SyntaxError(`Duplicate key '${key}' encountered at position ${position + 1}`);
  }
  if (!Array.isArray(keys)) return keys.add(key);
  if (keys.length < MAX_LISTED_KEYS) {
    keys.push(key);
    return keys;
  }
  return new Set(keys).add(key);
}
