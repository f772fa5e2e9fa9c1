// The keys a service accepts, as one immutable table: each key by the SHA-256 of its text, with its
// client, roles and expiry. A reload builds a new table and swaps it in whole (src/auth/key-ring.ts),
// so a request sees the old keys or the new ones, never a mix.
import { CLIENT_NAME, clientScopeOf, digestKeyOf, sha256Hex, SHA256_HEX, type ApiKeyEntry } from './api-clients.js';
import { isBearerToken } from './bearer-token.js';
import { NO_QUOTAS, type QuotaPolicy } from '../limits/quotas.js';
import type { SpecRoles } from './roles.js';

export interface Credential {
  client: string;
  /**
   * Whose Idempotency-Keys its requests use: the client's (clientScopeOf), so that a retry sent with
   * the client's rotated key replays the first response. No secret.
   */
  scope: string;
  /** The SHA-256 of the key, hex: what its Idempotency-Key records were scoped to before 1.5.0. */
  digest: string;
  roles: ReadonlySet<string>;
  /** Unix time in ms; Infinity for a key that does not expire. */
  expiresAt: number;
}

export interface KeyTable {
  /** The credential of a token, or undefined. */
  lookUp(token: string): Credential | undefined;
  /** Every credential, for the metrics of keys about to expire. */
  readonly credentials: readonly Credential[];
  /** The quotas of the clients (src/limits/quotas.ts), read with the keys. */
  readonly quotas: QuotaPolicy;
}

/** A problem with one entry: `entry` counts from 1, and the message never holds a key's text. */
export class KeyEntryError extends Error {
  constructor(
    readonly entry: number,
    readonly reason: string,
  ) {
    super(`entry ${entry}: ${reason}`);
  }
}

/**
 * The table of `entries`, every role one of those the spec names; an entry without roles carries
 * the spec's default roles, never an operator's. Throws KeyEntryError for the first unusable entry.
 */
export function keyTableOf(
  entries: readonly ApiKeyEntry[],
  { named: knownRoles, byDefault }: SpecRoles,
  quotas: QuotaPolicy = NO_QUOTAS,
): KeyTable {
  if (entries.length === 0) throw new Error('at least one API key is needed');
  const known = new Set(knownRoles);
  const byDigest = new Map<string, Credential>();
  entries.forEach((entry, index) => {
    const { client, sha256, roles = byDefault, expiresAt = Infinity } = digestKeyOf(entry);
    const problem = (reason: string) => new KeyEntryError(index + 1, reason);
    // A key outside the token syntax could never be sent in an Authorization header.
    const text = typeof entry === 'string' ? entry : 'key' in entry ? entry.key : undefined;
    if (text !== undefined && !isBearerToken(text)) throw problem('the key must have the bearer token syntax');
    if (!CLIENT_NAME.test(client)) throw problem(`client must be 1 to 32 characters from a-z 0-9 - _`);
    if (!SHA256_HEX.test(sha256)) throw problem('sha256 must be 64 lower-case hex digits');
    const unknown = roles.find((role) => !known.has(role));
    if (unknown !== undefined)
      throw problem(
        `role ${JSON.stringify(unknown)} is not named by openapi.yaml (its roles: ${knownRoles.join(', ') || 'none'})`,
      );
    const duplicate = byDigest.get(sha256);
    if (duplicate !== undefined) throw problem(`the same key as an earlier entry (client ${duplicate.client})`);
    byDigest.set(sha256, { client, scope: clientScopeOf(client), digest: sha256, roles: new Set(roles), expiresAt });
  });
  // Tokens seen valid, by their text: a token is hashed once, then found by one Map look-up, which
  // costs less than the hash (docs/decisions.md, "Authentication"). Only keys of this
  // table enter it, so it holds at most one token per entry.
  const byToken = new Map<string, Credential>();
  return {
    lookUp(token) {
      const seen = byToken.get(token);
      if (seen !== undefined) return seen;
      const credential = byDigest.get(sha256Hex(token));
      if (credential !== undefined) byToken.set(flat(token), credential);
      return credential;
    },
    credentials: [...byDigest.values()],
    quotas,
  };
}

/** A copy of text stored in one piece: a token sliced from a header would keep the whole header alive. */
function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}
