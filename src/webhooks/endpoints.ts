// The webhook endpoints of a running service: WEBHOOKS_FILE, read again on SIGHUP and within a
// second of a change (as the keys file, src/auth/key-ring.ts). An unusable file at reload keeps the
// endpoints in use and says why.
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { KEYS_FILE_POLL_MS } from '../auth/key-ring.js';
import { sha256Hex } from '../auth/key-table.js';
import { webhooksFileEndpoints, type WebhookEndpoint } from './webhooks-file.js';

export interface Endpoints {
  current(): readonly WebhookEndpoint[];
  /** Reads the file again; false when it is unusable (the endpoints in use stay). */
  reload(): boolean;
  /** Called after every reload that read a changed file. */
  onChange(listener: () => void): void;
  close(): void;
}

export interface EndpointsEvents {
  onReload?(result: { ok: true; endpoints: number } | { ok: false; reason: string }): void;
}

/** A fixed list (tests, and a service without WEBHOOKS_FILE: none). */
export function fixedEndpoints(endpoints: readonly WebhookEndpoint[]): Endpoints {
  return { current: () => endpoints, reload: () => true, onChange: () => undefined, close: () => undefined };
}

/** The endpoints of `path`, read now (an unusable file throws, with its line and reason), then again on reload() and when it changes. */
export function endpointsFromFile(path: string, events: EndpointsEvents = {}, pollMs = KEYS_FILE_POLL_MS): Endpoints {
  const read = () => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`WEBHOOKS_FILE ${path}: cannot be read (${String((error as NodeJS.ErrnoException).code)})`);
    }
    return { digest: sha256Hex(text), endpoints: webhooksFileEndpoints(text, `WEBHOOKS_FILE ${path}`) };
  };
  let current = read();
  let failing = false;
  const listeners: (() => void)[] = [];
  const endpoints: Endpoints = {
    current: () => current.endpoints,
    reload() {
      let next: typeof current;
      try {
        next = read();
      } catch (error) {
        failing = true;
        events.onReload?.({ ok: false, reason: (error as Error).message });
        return false;
      }
      if (next.digest === current.digest && !failing) return true;
      failing = false;
      current = next;
      events.onReload?.({ ok: true, endpoints: next.endpoints.length });
      for (const listener of listeners) listener();
      return true;
    },
    onChange: (listener) => void listeners.push(listener),
    close: () => unwatchFile(path, onChange),
  };
  const onChange = () => void endpoints.reload();
  watchFile(path, { interval: pollMs, persistent: false }, onChange);
  return endpoints;
}
