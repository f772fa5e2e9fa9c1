// Who is calling: every API key belongs to a named client. Names label metrics and log lines, so an
// operator can tell callers apart (who still calls a deprecated operation) without seeing any key.
import { scopeOf } from '../idempotency/idempotency-key.js';

export interface ClientKey {
  /** 1 to 32 characters of a-z 0-9 - _; several keys may share one (rotation). */
  client: string;
  key: string;
}

/** A key as configured: `name:key` names its client, a bare key is named after its hash. */
export type ApiKeyEntry = string | ClientKey;

export const CLIENT_NAME = /^[a-z0-9_-]{1,32}$/;

/** The name of a key configured without one: stable across instances and restarts, and no secret. */
export function unnamedClientOf(key: string): string {
  return `key-${scopeOf(key).slice(0, 8)}`;
}

export function clientKeyOf(entry: ApiKeyEntry): ClientKey {
  return typeof entry === 'string' ? { client: unnamedClientOf(entry), key: entry } : entry;
}
