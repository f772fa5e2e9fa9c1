// Bearer-token authentication (RFC 6750), run before anything else in the request is looked at.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Unauthorized } from '../errors/api-errors.js';

const REALM = 'petstore';
const SCHEME = 'Bearer ';
/** The token syntax of RFC 6750 (b64token): a key must match it to be sendable at all. */
const TOKEN = '[A-Za-z0-9\\-._~+/]+=*';
// The fast path in createBearerAuth reads SCHEME by position; this is the full syntax it stands for.
const BEARER = new RegExp(`^${SCHEME.trimEnd()} +(${TOKEN}) *$`, 'i');
const WHOLE_TOKEN = new RegExp(`^${TOKEN}$`);

export function isBearerToken(value: string): boolean {
  return WHOLE_TOKEN.test(value);
}

/** Returns when the request carries a valid key; otherwise sets the challenge header and throws Unauthorized. */
export type Authenticator = (request: FastifyRequest, reply: FastifyReply) => void;

export function createBearerAuth(apiKeys: readonly string[]): Authenticator {
  if (apiKeys.length === 0) throw new Error('createBearerAuth needs at least one API key');
  // A key outside the token syntax could never be sent, and would let the fast path below accept
  // a header that the full syntax refuses.
  if (!apiKeys.every(isBearerToken)) throw new Error('createBearerAuth: every API key must have the bearer token syntax');
  const keys = apiKeys.map((key) => Buffer.from(key));

  // Every key is compared, each in constant time, so the time taken says nothing about a key's
  // content (only, at most, its length). No hashing: a SHA-256 per request cost ~5 µs, a quarter
  // of a whole request (see the benchmark in the README).
  const isKnown = (token: string): boolean => {
    const candidate = Buffer.from(token);
    let known = false;
    for (const key of keys) {
      const same = key.length === candidate.length ? timingSafeEqual(key, candidate) : !timingSafeEqual(candidate, candidate);
      known = same || known;
    }
    return known;
  };

  return function authenticate(request, reply) {
    const header = request.headers.authorization;
    // Nearly every request sends exactly "Bearer <key>": the token is then read by position, and the
    // regular expression (~600 instructions) runs only for other headers, with the same outcome.
    if (header?.startsWith(SCHEME) === true && isKnown(header.slice(SCHEME.length))) return;
    if (header === undefined || header === '') {
      reject(reply, 'The Authorization header is missing; send "Authorization: Bearer <API key>".');
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      reject(reply, 'The Authorization header must have the form "Bearer <API key>".', 'invalid_request');
    }
    if (!isKnown(token)) reject(reply, 'The API key is not valid.', 'invalid_token');
  };
}

function reject(reply: FastifyReply, message: string, error?: string): never {
  const challenge = error === undefined ? `Bearer realm="${REALM}"` : `Bearer realm="${REALM}", error="${error}"`;
  reply.header('www-authenticate', challenge);
  throw new Unauthorized(message);
}
