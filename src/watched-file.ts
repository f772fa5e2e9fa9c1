// A configuration file a running service reads again on SIGHUP and when it changes (API_KEYS_FILE,
// WEBHOOKS_FILE): parsed whole, it replaces what was in use in one step; an unusable file at reload
// keeps what is in use, and says why. A stat poll sees a change within `pollMs`, also a file replaced
// by a rename or a Kubernetes ConfigMap's symlink swap.
import { createHash } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';

/** How often a file is looked at: a change is read within this, well inside 5 s. */
export const FILE_POLL_MS = 1_000;

export interface WatchedFile<T> {
  /** What the file held when it was last read whole and usable. */
  current(): T;
  /** Reads the file again; false when it is unusable (what is in use stays). */
  reload(): boolean;
  close(): void;
}

export interface WatchedFileOptions<T> {
  /** How often the file is looked at (FILE_POLL_MS). */
  pollMs?: number;
  /** After each reload that read a changed file: what it now holds, or why it is unusable. */
  onReload?(result: { ok: true; value: T } | { ok: false; reason: string }): void;
}

/**
 * The file at `path`, parsed by `parse` now (an unusable file throws, `name` and the reason in the
 * message), then again on reload() and within `pollMs` of a change.
 */
export function watchedFile<T>(
  path: string,
  name: string,
  parse: (text: string) => T,
  events: WatchedFileOptions<T> = {},
): WatchedFile<T> {
  const { pollMs = FILE_POLL_MS } = events;
  const read = () => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`${name} ${path}: cannot be read (${String((error as NodeJS.ErrnoException).code)})`);
    }
    return { digest: createHash('sha256').update(text).digest('hex'), value: parse(text) };
  };
  let current = read();
  let failing = false;
  const file: WatchedFile<T> = {
    current: () => current.value,
    reload() {
      let next: typeof current;
      try {
        next = read();
      } catch (error) {
        failing = true;
        events.onReload?.({ ok: false, reason: (error as Error).message });
        return false;
      }
      // An unchanged file (a SIGHUP with nothing edited, a touch) keeps what it made.
      if (next.digest === current.digest && !failing) return true;
      failing = false;
      current = next;
      events.onReload?.({ ok: true, value: next.value });
      return true;
    },
    close: () => unwatchFile(path, onChange),
  };
  const onChange = () => void file.reload();
  watchFile(path, { interval: pollMs, persistent: false }, onChange);
  return file;
}
