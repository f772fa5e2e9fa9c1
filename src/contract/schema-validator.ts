// Ajv, as the engine validates responses with it: OpenAPI's int64 (`type: integer, format: int64`)
// holds bigints as well as numbers, with its bounds compared exactly; Ajv's own `integer` knows
// only doubles.
import { Ajv, type AnySchema } from 'ajv';
import formats from 'ajv-formats';
import { INT64_MAX, INT64_MIN } from './exact-json.js';

const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'const'] as const;

/** An int64 schema's constraints, as exact decimal text. */
type Bounds = Partial<Record<(typeof BOUNDS)[number], string>> & { enum?: string[] };

export function createValidator(): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: false, strictSchema: false, strictNumbers: true });
  // Every format of JSON Schema and OpenAPI is checked (a response's date-time, an int32), as
  // ajv-formats defines it; int64 is the keyword below. `.default`: see src/validation/ajv.ts.
  formats.default(ajv);
  ajv.addKeyword({
    keyword: 'engineInt64',
    schemaType: 'object',
    compile: (bounds: Bounds) => (data: unknown) => {
      if (!((typeof data === 'number' && Number.isSafeInteger(data)) || typeof data === 'bigint')) return false;
      const value = BigInt(data);
      if (value < INT64_MIN || value > INT64_MAX) return false;
      const bound = (name: (typeof BOUNDS)[number]) => bounds[name];
      const [min, max, above, below, multipleOf, constant] = BOUNDS.map(bound);
      // An integer's bound by a decimal: >= 0.5 is >= 1, < 2.5 is <= 2.
      const whole = (text: string, round: (value: number) => number) =>
        /^-?\d+$/.test(text) ? BigInt(text) : BigInt(round(Number(text)));
      return !(
        (min !== undefined && value < whole(min, Math.ceil)) ||
        (max !== undefined && value > whole(max, Math.floor)) ||
        (above !== undefined && value < whole(above, Math.floor) + 1n) ||
        (below !== undefined && value > whole(below, Math.ceil) - 1n) ||
        (multipleOf !== undefined && !isMultiple(value, multipleOf)) ||
        (constant !== undefined && String(value) !== constant) ||
        (bounds.enum !== undefined && !bounds.enum.includes(String(value)))
      );
    },
  });
  return ajv;
}

/** The schema with every int64 schema's type and bounds moved into the engineInt64 keyword. */
export function forValidation<T extends AnySchema>(schema: T): T {
  return rewrite(schema) as T;
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const copy = Object.fromEntries(Object.entries(object).map(([key, value]) => [key, rewrite(value)]));
  if (object['type'] !== 'integer' || object['format'] !== 'int64') return copy;
  const bounds: Bounds = {};
  for (const name of BOUNDS) {
    if (object[name] !== undefined) bounds[name] = String(object[name]);
    delete copy[name];
  }
  if (Array.isArray(object['enum'])) bounds.enum = object['enum'].map(String);
  delete copy['enum'];
  delete copy['type'];
  delete copy['format'];
  return { ...copy, engineInt64: bounds };
}

/** Whether `value` is a multiple of the decimal `of` ("3", "0.25"), exactly: 10^k·value by 10^k·of. */
function isMultiple(value: bigint, of: string): boolean {
  const [whole = '', fraction = ''] = of.split('.');
  return (value * 10n ** BigInt(fraction.length)) % BigInt(whole + fraction) === 0n;
}
