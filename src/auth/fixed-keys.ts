// A fixed set of keys (API_KEYS, the tests), apart from src/auth/key-ring.ts so that an app built
// with one does not load the keys file's YAML parser (some 80 modules).
import type { ApiKeyEntry } from './api-clients.js';
import type { KeyRing } from './key-ring.js';
import type { SpecRoles } from './roles.js';
import { keyTableOf } from './key-table.js';

export function fixedKeys(entries: readonly ApiKeyEntry[], roles: SpecRoles): KeyRing {
  const table = keyTableOf(entries, roles);
  return { table, close: () => undefined };
}
