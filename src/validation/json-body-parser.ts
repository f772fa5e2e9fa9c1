// JSON bodies are parsed losslessly: big integers keep every digit and a repeated key is an
// error rather than a silent overwrite, so the validator sees exactly what the client sent.
import { parse } from 'lossless-json';
import { BodyRequired, InvalidJson } from '../errors/api-errors.js';
import { parseJsonNumber } from './int64.js';

export function parseJson(text: string): unknown {
  return parse(text, null, parseJsonNumber);
}

export async function parseJsonBody(_request: unknown, body: string): Promise<unknown> {
  if (body.trim() === '') throw new BodyRequired();
  try {
    return parseJson(body);
  } catch (error) {
    throw new InvalidJson((error as Error).message);
  }
}
