// The webhook endpoints of a running service: WEBHOOKS_FILE, read again on SIGHUP and within a
// second of a change (as the keys file, src/auth/key-ring.ts). An unusable file at reload keeps the
// endpoints in use and says why.
import { FILE_POLL_MS, watchedFile } from '../watched-file.js';
import { webhooksFileEndpoints, type WebhookEndpoint } from './webhooks-file.js';

export interface Endpoints {
  current(): readonly WebhookEndpoint[];
  /**
   * The endpoint as it is now, read where it is kept (the API's, in the store), or null when it is
   * gone or disabled: what an attempt is sent to and signed with. Without it, the endpoint as listed.
   */
  latest?(endpoint: WebhookEndpoint): Promise<WebhookEndpoint | null>;
  /** Called after every reload that read a changed file. */
  onChange(listener: () => void): void;
  close(): void;
}

export interface EndpointsFile extends Endpoints {
  /** Reads the file again; false when it is unusable (the endpoints in use stay). */
  reload(): boolean;
}

export interface EndpointsEvents {
  onReload?(result: { ok: true; endpoints: number } | { ok: false; reason: string }): void;
}

/**
 * The endpoints of `path`, read now (an unusable file throws, with its line and reason), then again on reload() and
 * when it changes.
 */
export function endpointsFromFile(path: string, events: EndpointsEvents = {}, pollMs = FILE_POLL_MS): EndpointsFile {
  const listeners: (() => void)[] = [];
  const file = watchedFile(path, 'WEBHOOKS_FILE', (text) => webhooksFileEndpoints(text, `WEBHOOKS_FILE ${path}`), {
    pollMs,
    onReload(result) {
      events.onReload?.(result.ok ? { ok: true, endpoints: result.value.length } : result);
      if (result.ok) for (const listener of listeners) listener();
    },
  });
  return {
    current: () => file.current(),
    reload: () => file.reload(),
    onChange: (listener) => void listeners.push(listener),
    close: () => file.close(),
  };
}
