// JSON bodies (application/json, application/merge-patch+json) are parsed exactly (see
// strict-json.ts), and bytes that are not UTF-8 are refused rather than replaced, so the validator
// sees exactly what the client sent. The media type and its charset were checked before
// (src/routes/body-presence.ts).
import type { FastifyRequest } from 'fastify';
import { BodyRequired, InvalidJson } from '../errors/api-errors.js';
import { parseJson } from './strict-json.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export async function parseJsonBody(request: FastifyRequest, body: Buffer): Promise<unknown> {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new InvalidJson('it is not valid UTF-8');
  }
  // The media type was one the operation takes (body-presence.ts): the message names it.
  if (text.trim() === '') throw new BodyRequired(String(request.headers['content-type']).replace(/;.*$/s, '').trim());
  try {
    return parseJson(text);
  } catch (error) {
    throw new InvalidJson((error as Error).message);
  }
}
