// Who is calling: every API key belongs to a named client. Names label metrics and log lines, so an
// operator can tell callers apart (who still calls a deprecated operation) without seeing any key.
import { createHash } from 'node:crypto';

/** What a key may do and until when: absent roles mean the spec's default roles (x-default-roles). */
export interface KeyGrant {
  /** The roles the key carries (security requirement names in openapi.yaml); absent: the default ones. */
  roles?: readonly string[];
  /** From this instant (Unix time in ms) on, the key gets 401. */
  expiresAt?: number;
}

export interface ClientKey extends KeyGrant {
  /** 1 to 32 characters of a-z 0-9 - _; several keys may share one (rotation). */
  client: string;
  key: string;
}

/** A key known only by its SHA-256 (hex), as the keys file keeps it at rest. */
export interface DigestKey extends KeyGrant {
  client: string;
  sha256: string;
}

/** A key as configured: `name:key` names its client, a bare key is named after its hash. */
export type ApiKeyEntry = string | ClientKey | DigestKey;

export const CLIENT_NAME = /^[a-z0-9_-]{1,32}$/;
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The name of a key configured without one: stable across instances and restarts, and no secret. */
export function unnamedClientOf(key: string): string {
  return `key-${sha256Hex(key).slice(0, 8)}`;
}

/** Every entry as a digest: the key table looks keys up by their SHA-256, whatever their source. */
export function digestKeyOf(entry: ApiKeyEntry): DigestKey {
  if (typeof entry === 'string') return { client: unnamedClientOf(entry), sha256: sha256Hex(entry) };
  if ('sha256' in entry) return entry;
  const { key, ...grant } = entry;
  return { ...grant, sha256: sha256Hex(key) };
}

/**
 * The idempotency scope of a client: the SHA-256 of `client:` and its name, in hex. No key's digest
 * can equal it, since a key never holds a colon (RFC 6750's token syntax).
 */
export function clientScopeOf(client: string): string {
  return sha256Hex(`client:${client}`);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
