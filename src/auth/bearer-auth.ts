// Bearer-token authentication (RFC 6750), run before anything else in the request is looked at,
// then the roles the operation's security requirement names (403 insufficient_scope, RFC 6750 §3.1).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InsufficientScope, Unauthorized } from '../errors/api-errors.js';
import { TOKEN } from './bearer-token.js';
import type { KeyTable } from './key-table.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Whose request it is, once authenticated: stable for an API key, and not the key itself. */
    apiKeyScope: string;
    /** The name of the client whose key it is, once authenticated; '' before. */
    client: string;
    /** The roles of its key, once authenticated; null before. */
    roles: ReadonlySet<string> | null;
  }
}

const REALM = 'petstore';
const SCHEME = 'Bearer ';
const BEARER = new RegExp(`^${SCHEME.trimEnd()} +(${TOKEN}) *$`, 'i');

/** Where the current keys are: a reload replaces `table` whole (src/auth/key-ring.ts). */
export interface KeySource {
  readonly table: KeyTable;
}

/**
 * Returns when the request carries a valid, unexpired key with every role in `roles`, having set
 * its `apiKeyScope`, `client` and `roles`; otherwise sets the challenge header and throws Unauthorized (401)
 * or InsufficientScope (403). The app decorates requests with both.
 */
export type Authenticator = (request: FastifyRequest, reply: FastifyReply, roles: readonly string[]) => void;

export function createBearerAuth(keys: KeySource, clock: () => number = Date.now): Authenticator {
  return function authenticate(request, reply, roles) {
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      reject(reply, 'The Authorization header is missing; send "Authorization: Bearer <API key>".');
    }
    // Nearly every request sends exactly "Bearer <key>": its token is looked up as it is, and the
    // regular expression (~600 instructions) runs only for other spellings, with the same outcome.
    let credential = header.startsWith(SCHEME) ? keys.table.lookUp(header.slice(SCHEME.length)) : undefined;
    if (credential === undefined) {
      const token = BEARER.exec(header)?.[1];
      if (token === undefined)
        reject(reply, 'The Authorization header must have the form "Bearer <API key>".', 'invalid_request');
      credential = keys.table.lookUp(token);
      if (credential === undefined) reject(reply, 'The API key is not valid.', 'invalid_token');
    }
    if (credential.expiresAt !== Infinity && clock() >= credential.expiresAt) {
      reject(
        reply,
        `The API key expired at ${new Date(credential.expiresAt).toISOString()}; ask for a new one.`,
        'invalid_token',
      );
    }
    request.apiKeyScope = credential.scope;
    request.client = credential.client;
    request.roles = credential.roles;
    for (const role of roles) if (!credential.roles.has(role)) lacksRoles(reply, roles);
  };
}

/**
 * Refuses a request whose key lacks one of `roles` (for `what`, when that is not the operation
 * itself): 403 insufficient_scope, the challenge and the message naming every role (RFC 6750 §3.1).
 */
export function lacksRoles(reply: FastifyReply, roles: readonly string[], what?: string): never {
  reply.header('www-authenticate', `Bearer realm="${REALM}", error="insufficient_scope", scope="${roles.join(' ')}"`);
  const needed = roles.length === 1 ? `the role ${roles[0]}` : `the roles ${roles.join(', ')}`;
  throw new InsufficientScope(what === undefined ? needed : `${needed} ${what}`);
}

function reject(reply: FastifyReply, message: string, error?: string): never {
  const challenge = error === undefined ? `Bearer realm="${REALM}"` : `Bearer realm="${REALM}", error="${error}"`;
  reply.header('www-authenticate', challenge);
  throw new Unauthorized(message);
}
