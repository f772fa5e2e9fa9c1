// The keys of a running service. API_KEYS gives a fixed set; API_KEYS_FILE a set read again on
// SIGHUP and when the file changes, without a restart: the new table replaces the old one whole
// between two requests, so none is dropped or fails. An unusable file at reload keeps the keys in
// use, logs why and counts it (src/metrics/service-metrics.ts).
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { ApiKeyEntry } from './api-clients.js';
import type { KeySource } from './bearer-auth.js';
import { keyTableOf, sha256Hex, type KeyTable } from './key-table.js';
import { keysFileTable } from './keys-file.js';

/** How often the file is looked at: a change is read within this, well inside 5 s. */
export const KEYS_FILE_POLL_MS = 1_000;

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

/** A fixed set of keys (API_KEYS, the tests). */
export function fixedKeys(entries: readonly ApiKeyEntry[], knownRoles: readonly string[]): KeyRing {
  const table = keyTableOf(entries, knownRoles);
  return { table, close: () => undefined };
}

/**
 * The keys of `path`, read now (an unusable file throws, with its line and reason), then again on
 * reload() and within KEYS_FILE_POLL_MS of a change to the file (a stat poll, which also sees a
 * file replaced by a rename or a Kubernetes ConfigMap's symlink swap).
 */
export function keysFromFile(path: string, knownRoles: readonly string[], events: KeyRingEvents = {}, pollMs = KEYS_FILE_POLL_MS): KeysFile {
  const read = (): { digest: string; table: KeyTable } => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`API_KEYS_FILE ${path}: cannot be read (${String((error as NodeJS.ErrnoException).code)})`);
    }
    return { digest: sha256Hex(text), table: keysFileTable(text, `API_KEYS_FILE ${path}`, knownRoles) };
  };
  let current = read();
  let failing = false;
  const ring: KeysFile = {
    table: current.table,
    reload() {
      let next: typeof current;
      try {
        next = read();
      } catch (error) {
        failing = true;
        events.onReload?.({ ok: false, reason: (error as Error).message });
        return false;
      }
      // An unchanged file (a SIGHUP with nothing edited, a touch) keeps its table and the tokens it has seen.
      if (next.digest === current.digest && !failing) return true;
      failing = false;
      current = next;
      ring.table = next.table;
      events.onReload?.({ ok: true, keys: next.table.credentials.length });
      return true;
    },
    close: () => unwatchFile(path, onChange),
  };
  const onChange = () => void ring.reload();
  watchFile(path, { interval: pollMs, persistent: false }, onChange);
  return ring;
}
