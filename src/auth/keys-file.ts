// API_KEYS_FILE: the keys a deployment accepts, in a YAML file an operator edits (docs/operating.md):
//   keys:
//     - client: reporting          # the name metrics and logs use
//       sha256: 9f86d081884c7d65…   # hex SHA-256 of the key; or `key: <the key>` for local use
//       roles: [pets:read]         # default: openapi.yaml's x-default-roles
//       expires: 2027-01-31T00:00:00Z   # optional; from then on the key gets 401
//   quotas:                          # optional (src/limits/quotas.ts)
//     default: 100/1s                # every client without its own
//     clients:
//       reporting: 10/1s
// An unusable file is refused whole, with the line and the reason, and never a key's text.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { configYaml } from '../yaml-config.js';
import { SHA256_HEX, type ApiKeyEntry } from './api-clients.js';
import { isUsableKey, MIN_KEY_LENGTH } from './bearer-token.js';
import { KeyEntryError, keyTableOf, type KeyTable } from './key-table.js';
import type { SpecRoles } from './roles.js';
import { parseQuota, type Quota, type QuotaPolicy } from '../limits/quotas.js';

const FIELDS = new Set(['client', 'key', 'sha256', 'roles', 'expires']);
// RFC 3339: a date (midnight UTC) or a date-time with its offset.
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export class KeysFileError extends Error {}

/** The table of the keys file's text; `name` is how messages call the file. Throws KeysFileError. */
export function keysFileTable(text: string, name: string, specRoles: SpecRoles): KeyTable {
  const { root, fail } = configYaml(text, name, (message) => new KeysFileError(message));
  if (!isMap(root)) return fail(root, 'expected a mapping with the field keys (and optionally quotas)');
  for (const pair of root.items) {
    const field = String((pair.key as { value?: unknown }).value);
    if (field !== 'keys' && field !== 'quotas')
      fail(pair.key as Node, `unknown field ${JSON.stringify(field)}; the file has keys and, optionally, quotas`);
  }
  const list = root.get('keys', true);
  if (!isSeq(list) || list.items.length === 0)
    return fail((list ?? root) as Node, 'keys must be a list of at least one entry');
  const nodes = list.items as Node[];
  const entries = nodes.map((node, index): ApiKeyEntry => {
    const where = `entry ${index + 1}`;
    if (!isMap(node)) return fail(node, `${where} must be a mapping (client, sha256 or key, roles, expires)`);
    const value = (field: string) => node.get(field, true) as (Node & { value?: unknown }) | undefined;
    for (const pair of node.items) {
      const field = String((pair.key as { value?: unknown }).value);
      if (!FIELDS.has(field))
        fail(pair.key as Node, `${where}: unknown field ${JSON.stringify(field)} (known: ${[...FIELDS].join(', ')})`);
    }
    const client = value('client');
    if (typeof client?.value !== 'string')
      fail(client ?? node, `${where}: client is required, a name of 1 to 32 characters from a-z 0-9 - _`);
    const key = value('key');
    const sha256 = value('sha256');
    if ((key === undefined) === (sha256 === undefined))
      fail(node, `${where}: give exactly one of sha256 (the key's SHA-256, hex) or key`);
    const grant: { roles?: string[]; expiresAt?: number } = {};
    const roles = node.get('roles', true);
    if (roles !== undefined) {
      if (!isSeq(roles) || !roles.items.every((item) => typeof (item as { value?: unknown }).value === 'string'))
        fail(roles as Node, `${where}: roles must be a list of role names`);
      if ((roles as unknown as { items: unknown[] }).items.length === 0)
        fail(roles as Node, `${where}: roles is empty: a key with no role can call nothing (remove the entry instead)`);
      grant.roles = (roles as unknown as { items: { value: string }[] }).items.map((item) => item.value);
    }
    const expires = value('expires');
    if (expires !== undefined) {
      const text = String(expires.value);
      const time = DATE.test(text) ? Date.parse(`${text}T00:00:00Z`) : DATE_TIME.test(text) ? Date.parse(text) : NaN;
      if (Number.isNaN(time))
        fail(
          expires,
          `${where}: expires must be a date (2027-01-31) or a date-time with its offset (2027-01-31T00:00:00Z)`,
        );
      grant.expiresAt = time;
    }
    const name = client!.value as string;
    if (sha256 !== undefined) {
      const digest = String(sha256.value);
      if (!SHA256_HEX.test(digest)) fail(sha256, `${where}: sha256 must be 64 lower-case hex digits`);
      return { client: name, sha256: digest, ...grant };
    }
    const text = key!.value;
    if (typeof text !== 'string' || !isUsableKey(text)) {
      fail(key, `${where}: key must be at least ${MIN_KEY_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / (then =)`);
    }
    return { client: name, key: text as string, ...grant };
  });
  const quotas = quotasOf(
    root.get('quotas', true) as Node | undefined,
    new Set(entries.map((entry) => (entry as { client: string }).client)),
    fail,
  );
  try {
    return keyTableOf(entries, specRoles, quotas);
  } catch (error) {
    // The list is not empty (above), so what keyTableOf refuses is one entry.
    return fail(nodes[(error as KeyEntryError).entry - 1], (error as Error).message);
  }
}

/** The quotas section: `default` and `clients` (each a client of some key), each `<requests>/<window>`. */
function quotasOf(
  node: Node | undefined,
  clients: ReadonlySet<string>,
  fail: (node: Node | null | undefined, reason: string) => never,
): QuotaPolicy {
  if (node === undefined) return { clients: new Map() };
  if (!isMap(node)) return fail(node, 'quotas must be a mapping: default, clients');
  const quota = (value: unknown, where: string): Quota => {
    const parsed = isScalar(value) && typeof value.value === 'string' ? parseQuota(value.value) : undefined;
    return parsed ?? fail(value as Node, `${where} must be <requests>/<window>, such as 100/1s, 6000/1m or 50000/1h`);
  };
  const policy: { default?: Quota; clients: Map<string, Quota> } = { clients: new Map() };
  for (const pair of node.items) {
    const field = String((pair.key as { value?: unknown }).value);
    if (field === 'default') {
      policy.default = quota(pair.value, 'quotas.default');
    } else if (field === 'clients') {
      if (!isMap(pair.value)) fail(pair.value as Node, 'quotas.clients must map client names to quotas');
      for (const item of (pair.value as unknown as { items: { key: Node & { value?: unknown }; value: Node }[] })
        .items) {
        const client = String(item.key.value);
        if (!clients.has(client)) fail(item.key, `quotas.clients: no key belongs to client ${JSON.stringify(client)}`);
        policy.clients.set(client, quota(item.value, `quotas.clients.${client}`));
      }
    } else {
      fail(pair.key as Node, `quotas: unknown field ${JSON.stringify(field)} (known: default, clients)`);
    }
  }
  return policy;
}
