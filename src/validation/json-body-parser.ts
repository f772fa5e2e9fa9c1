// JSON bodies are parsed exactly (see strict-json.ts), and bytes that are not UTF-8 are refused
// rather than replaced, so the validator sees exactly what the client sent.
import type { FastifyRequest } from 'fastify';
import { BodyRequired, InvalidJson, UnsupportedMediaType } from '../errors/api-errors.js';
import { parseJson } from './strict-json.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

export async function parseJsonBody(request: FastifyRequest, body: Buffer): Promise<unknown> {
  const contentType = String(request.headers['content-type']);
  const charset = CHARSET.exec(contentType)?.[1];
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') throw new UnsupportedMediaType(`Content-Type ${contentType}`);
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new InvalidJson('it is not valid UTF-8');
  }
  if (text.trim() === '') throw new BodyRequired();
  try {
    return parseJson(text);
  } catch (error) {
    throw new InvalidJson((error as Error).message);
  }
}
