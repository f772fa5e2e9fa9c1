// Bearer-token authentication (RFC 6750), run before anything else in the request is looked at.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Unauthorized } from '../errors/api-errors.js';
import { scopeOf } from '../idempotency/idempotency-key.js';
import { CLIENT_NAME, clientKeyOf, type ApiKeyEntry } from './api-clients.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Whose request it is, once authenticated: stable for an API key, and not the key itself. */
    apiKeyScope: string;
    /** The name of the client whose key it is, once authenticated; '' before. */
    client: string;
  }
}

const REALM = 'petstore';
const SCHEME = 'Bearer ';
/** The token syntax of RFC 6750 (b64token): a key must match it to be sendable at all. */
const TOKEN = '[A-Za-z0-9\\-._~+/]+=*';
// The fast path in createBearerAuth compares whole headers, SCHEME + key; this is the full syntax it stands for.
const BEARER = new RegExp(`^${SCHEME.trimEnd()} +(${TOKEN}) *$`, 'i');
const WHOLE_TOKEN = new RegExp(`^${TOKEN}$`);

export function isBearerToken(value: string): boolean {
  return WHOLE_TOKEN.test(value);
}

/**
 * Returns when the request carries a valid key, having set its `apiKeyScope` and `client`; otherwise
 * sets the challenge header and throws Unauthorized. The app decorates requests with both.
 */
export type Authenticator = (request: FastifyRequest, reply: FastifyReply) => void;

export function createBearerAuth(entries: readonly ApiKeyEntry[]): Authenticator {
  if (entries.length === 0) throw new Error('createBearerAuth needs at least one API key');
  const clientKeys = entries.map(clientKeyOf);
  const apiKeys = clientKeys.map(({ key }) => key);
  const clients = clientKeys.map(({ client }) => client);
  if (!clients.every((client) => CLIENT_NAME.test(client))) throw new Error(`createBearerAuth: every client name must match ${CLIENT_NAME}`);
  // A key outside the token syntax could never be sent, and would let the fast path below accept
  // a header that the full syntax refuses.
  if (!apiKeys.every(isBearerToken)) throw new Error('createBearerAuth: every API key must have the bearer token syntax');
  // Kept as flat strings: `SCHEME + key` is a two-part string, and a key from the environment may be
  // a slice of a longer one; reading such strings char by char costs several times more.
  const keys = apiKeys.map(flat);
  const wholeHeaders = apiKeys.map((key) => flat(SCHEME + key));
  // Computed once: hashing per request would cost a quarter of a request (see matchingIndex).
  const scopes = apiKeys.map(scopeOf);

  return function authenticate(request, reply) {
    const header = request.headers.authorization;
    // Nearly every request sends exactly "Bearer <key>", so that whole header is compared first, and
    // the regular expression (~600 instructions) runs only for other headers, with the same outcome.
    if (header !== undefined) {
      const index = matchingIndex(wholeHeaders, header);
      if (index >= 0) {
        request.apiKeyScope = scopes[index]!;
        request.client = clients[index]!;
        return;
      }
    }
    if (header === undefined || header === '') {
      reject(reply, 'The Authorization header is missing; send "Authorization: Bearer <API key>".');
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      reject(reply, 'The Authorization header must have the form "Bearer <API key>".', 'invalid_request');
    }
    const index = matchingIndex(keys, token);
    if (index < 0) reject(reply, 'The API key is not valid.', 'invalid_token');
    request.apiKeyScope = scopes[index]!;
    request.client = clients[index]!;
  };
}

/**
 * Which candidate text equals, or -1. Every candidate of text's length is compared in full,
 * with no early exit and no branch on the characters, so the time taken says nothing about a key's
 * content (only, at most, its length). No hashing: a SHA-256 per request cost ~5 µs, a quarter of
 * a whole request. Not crypto.timingSafeEqual either: with the Buffer it needs made per request
 * and the header sliced, a check took 183 ns; this loop over the whole header takes 91 ns. Like
 * timingSafeEqual, it is the same XOR-and-OR over every byte that Go's ConstantTimeCompare does.
 */
function matchingIndex(candidates: readonly string[], text: string): number {
  let found = -1;
  for (let candidate = 0; candidate < candidates.length; candidate++) {
    const key = candidates[candidate]!;
    if (key.length !== text.length) continue;
    let difference = 0;
    for (let index = 0; index < text.length; index++) difference |= key.charCodeAt(index) ^ text.charCodeAt(index);
    if (difference === 0) found = candidate;
  }
  return found;
}

/** A copy of text stored in one piece (text is in the token syntax, so Latin-1 holds it exactly). */
function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

function reject(reply: FastifyReply, message: string, error?: string): never {
  const challenge = error === undefined ? `Bearer realm="${REALM}"` : `Bearer realm="${REALM}", error="${error}"`;
  reply.header('www-authenticate', challenge);
  throw new Unauthorized(message);
}
