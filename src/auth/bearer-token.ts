// The token syntax of RFC 6750 (b64token): a key must match it to be sendable as a bearer token at
// all. Its own module, read by the authentication (src/auth/bearer-auth.ts), the key table and the
// configuration, so that none of them imports another for it.

/** The token as the syntax allows it, between `Bearer ` and the end of the header. */
export const TOKEN = '[A-Za-z0-9\\-._~+/]+=*';
const WHOLE_TOKEN = new RegExp(`^${TOKEN}$`);

export function isBearerToken(value: string): boolean {
  return WHOLE_TOKEN.test(value);
}

export const MIN_KEY_LENGTH = 16;

/** Whether `key` may be a configured API key: a bearer token of at least MIN_KEY_LENGTH characters. */
export function isUsableKey(key: string): boolean {
  return isBearerToken(key) && key.length >= MIN_KEY_LENGTH;
}
