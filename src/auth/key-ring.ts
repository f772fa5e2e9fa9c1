// The keys of a running service. API_KEYS gives a fixed set; API_KEYS_FILE a set read again on
// SIGHUP and when the file changes, without a restart: the new table replaces the old one whole
// between two requests, so none is dropped or fails. An unusable file at reload keeps the keys in
// use, logs why and counts it (src/metrics/service-metrics.ts). A fixed set: src/auth/fixed-keys.ts.
import type { KeySource } from './bearer-auth.js';
import type { KeyTable } from './key-table.js';
import { FILE_POLL_MS, watchedFile } from '../watched-file.js';
import { keysFileTable } from './keys-file.js';
import type { SpecRoles } from './roles.js';

export interface KeyRing extends KeySource {
  table: KeyTable;
  /** Stops watching the file, if there is one. */
  close(): void;
}

export interface KeysFile extends KeyRing {
  /** Reads the file again; false when it is unusable (the keys in use stay). */
  reload(): boolean;
}

export interface KeyRingEvents {
  /** After each reload that read a changed file: whether it was usable, and why not. */
  onReload?(result: { ok: true; keys: number } | { ok: false; reason: string }): void;
}

/**
 * The keys of `path`, read now (an unusable file throws, with its line and reason), then again on
 * reload() and within FILE_POLL_MS of a change to the file (a stat poll, which also sees a
 * file replaced by a rename or a Kubernetes ConfigMap's symlink swap).
 */
export function keysFromFile(
  path: string,
  roles: SpecRoles,
  events: KeyRingEvents = {},
  pollMs = FILE_POLL_MS,
): KeysFile {
  const file = watchedFile(path, 'API_KEYS_FILE', (text) => keysFileTable(text, `API_KEYS_FILE ${path}`, roles), {
    pollMs,
    onReload(result) {
      // An unchanged file keeps its table, and the tokens that table has seen.
      if (result.ok) ring.table = result.value;
      events.onReload?.(result.ok ? { ok: true, keys: result.value.credentials.length } : result);
    },
  });
  const ring: KeysFile = { table: file.current(), reload: () => file.reload(), close: () => file.close() };
  return ring;
}
