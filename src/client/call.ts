// The client's runtime: one HTTP exchange per attempt over fetch, the retries that are safe, the
// pages a response links to, the deprecation warning, and exact JSON. What each operation needs
// comes from the spec through generated/client-api.ts; nothing here names an operation.
import { PetstoreConnectionError, PetstoreError, PetstoreResponseError } from './errors.js';
import { exactNumberText, parseExact, stringifyExact } from './exact-json.js';
import { linkTargets } from './link-header.js';
import { PositionKeeper } from './store-position.js';
import type {
  Call,
  CallSettings,
  KeyedCallOptions,
  NumberPlaces,
  OperationSpec,
  Page,
  Parts,
  ResponseInfo,
} from './call-types.js';

export type {
  Call,
  CallOptions,
  CallSettings,
  ItemOf,
  KeyedCallOptions,
  Logger,
  Loose,
  NumberPlaces,
  OperationSpec,
  Page,
  Paginated,
  Parts,
  ResponseInfo,
} from './call-types.js';

const responses = new WeakMap<object, ResponseInfo>();

/** The status, headers and attempts behind a value a call returned (an object or array), when it came from one. */
export function responseOf(value: object): ResponseInfo | undefined {
  return responses.get(value);
}

/** Retry-After as the service sends it (seconds) or as an HTTP-date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The longest Retry-After the client honours; a longer one is waited for this long. */
export const RETRY_AFTER_CAP_S = 60;
/** Backoff without Retry-After: full jitter over an exponential window starting here, capped. */
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 10_000;
const RETRIED_STATUSES = new Set([502, 503, 504]);

export function backoffMs(retry: number, retryAfter: number | undefined, random = Math.random): number {
  if (retryAfter !== undefined) return Math.min(retryAfter, RETRY_AFTER_CAP_S) * 1000;
  return Math.round(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A value in a URL: int64 values exactly, a number only while it is an exact integer or not integral. */
function urlValue(value: unknown, where: string): string {
  return typeof value === 'number' ? exactNumberText(value, where) : String(value);
}

/** Turns the integers the spec does not declare int64 back into numbers, where `places` says. */
export function withNumbers(value: unknown, places: NumberPlaces | undefined): unknown {
  if (places === null || places === undefined) return value;
  if (places === 'n') return typeof value === 'bigint' ? Number(value) : value;
  if ('i' in places) return Array.isArray(value) ? value.map((item) => withNumbers(item, places.i)) : value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const object = value as Record<string, unknown>;
  for (const [name, inner] of Object.entries(places.p))
    if (name in object) object[name] = withNumbers(object[name], inner);
  return object;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

export function createCall(settings: CallSettings): Call {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const warned = new Set<string>();
  const positions = new PositionKeeper();

  function warnIfDeprecated(operation: OperationSpec, headers: Headers): void {
    const deprecation = headers.get('deprecation');
    if (deprecation === null || warned.has(operation.operationId)) return;
    warned.add(operation.operationId);
    const sunset = headers.get('sunset');
    const successor = linkTargets(headers.get('link'), 'successor-version')[0];
    settings.logger.warn(
      `petstore-client: ${operation.operationId} is deprecated (Deprecation: ${deprecation})` +
        `${sunset === null ? '' : `; it will be removed on ${sunset} (Sunset)`}` +
        `${successor === undefined ? '' : `; use ${successor} instead`}.`,
    );
  }

  /** Sends `init` to `url` until a response that is not worth a retry, and returns it with its body read. */
  async function exchange(operation: OperationSpec, url: string, init: RequestInit, signal: AbortSignal | undefined) {
    const retries = operation.retrySafe ? settings.maxRetries : 0;
    // A long poll (listPetEvents' `wait`) asks the service to hold its response: that long is added.
    const timeoutMs = settings.timeoutMs + Number(new URL(url).searchParams.get('wait') ?? 0) * 1000;
    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const attemptSignal = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
      let response: Response;
      let text: string;
      try {
        response = await settings.fetch(url, { ...init, signal: attemptSignal });
        text = await response.text();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const what = timeout.aborted
          ? `no response within ${timeoutMs} ms`
          : `the connection failed (${(error as Error).message})`;
        if (attempt > retries)
          throw new PetstoreConnectionError(operation.operationId, attempt, `${operation.method} ${url}: ${what}`, {
            cause: error,
          });
        await sleep(backoffMs(attempt - 1, undefined), signal);
        continue;
      }
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      // 429: the service did nothing with the request, so any method is sent again, after Retry-After.
      if (
        (RETRIED_STATUSES.has(response.status) && attempt <= retries) ||
        (response.status === 429 && attempt <= settings.maxRetries)
      ) {
        await sleep(backoffMs(attempt - 1, retryAfter), signal);
        continue;
      }
      return { response, text, retryAfter, attempts: attempt };
    }
    /* c8 ignore next -- the loop ends only by return or throw */
  }

  /** One call: its response's body, exact, or the error it stands for. */
  async function call(
    operation: OperationSpec,
    url: string,
    body: unknown,
    options: KeyedCallOptions | undefined,
  ): Promise<{ value: unknown; headers: Headers }> {
    const headers: Record<string, string> = { authorization: `Bearer ${settings.apiKey}`, accept: 'application/json' };
    const init: RequestInit = { method: operation.method, headers };
    if (body !== undefined) {
      headers['content-type'] = operation.mediaType;
      init.body = stringifyExact(body);
    }
    const highest = settings.readYourWrites ? positions.highest : undefined;
    if (highest !== undefined && 'store-position' in operation.headerOptions) headers['store-position'] = highest;
    for (const [name, option] of Object.entries(operation.headerOptions)) {
      const value = (options as Record<string, unknown> | undefined)?.[option];
      if (value !== undefined) headers[name] = String(value);
    }
    // An RFC 8941 string, as the spec writes it; the key is made once, before the first attempt.
    if (operation.idempotencyKey) headers['idempotency-key'] = `"${options?.idempotencyKey ?? crypto.randomUUID()}"`;
    const { response, text, retryAfter, attempts } = await exchange(operation, url, init, options?.signal);
    positions.saw(response.headers);
    warnIfDeprecated(operation, response.headers);
    return { value: bodyOf(operation, { response, text, retryAfter, attempts }), headers: response.headers };
  }

  function urlOf(operation: OperationSpec, parts: Parts): string {
    const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) =>
      encodeURIComponent(urlValue(parts.path[name], `path parameter ${name}`)),
    );
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(parts.query ?? {}))
      if (value !== undefined) search.append(name, urlValue(value, `query parameter ${name}`));
    const query = search.toString();
    return `${base}${path}${query === '' ? '' : `?${query}`}`;
  }

  return {
    async send(operation, parts, options) {
      return (await call(operation, urlOf(operation, parts), parts.body, options)).value as never;
    },
    paginate(operation, parts, options) {
      const first = urlOf(operation, parts);
      async function* pages(): AsyncGenerator<Page<never>> {
        for (let url: string | undefined = first; url !== undefined;) {
          const { value, headers } = await call(operation, url, undefined, options);
          // The next page is the link the response gives, resolved against the URL that was called.
          const target = linkTargets(headers.get('link'), 'next')[0];
          const next: string | undefined = target === undefined ? undefined : new URL(target, url).href;
          yield { items: value as never[], next };
          url = next;
        }
      }
      return {
        pages,
        async *[Symbol.asyncIterator]() {
          for await (const page of pages()) yield* page.items;
        },
      };
    },
  };
}

/** A response's body, exact, as the caller gets it; or the error it stands for. */
function bodyOf(
  operation: OperationSpec,
  {
    response,
    text,
    retryAfter,
    attempts,
  }: { response: Response; text: string; retryAfter: number | undefined; attempts: number },
): unknown {
  const contentType = response.headers.get('content-type');
  const success = operation.successStatuses.includes(response.status);
  const places = operation.numbers[String(response.status)];
  if (success && places === undefined) return undefined;
  if (contentType === null || !JSON_TYPE.test(contentType)) {
    throw new PetstoreResponseError(
      operation.operationId,
      response.status,
      contentType,
      `is not the JSON the spec documents`,
    );
  }
  let value: unknown;
  try {
    value = withNumbers(parseExact(text), places);
  } catch (error) {
    throw new PetstoreResponseError(
      operation.operationId,
      response.status,
      contentType,
      `is not valid JSON: ${(error as Error).message}`,
    );
  }
  if (!success) {
    const error = value as { code?: unknown; message?: unknown } | null;
    if (places === undefined || typeof error?.code !== 'string' || typeof error.message !== 'string') {
      throw new PetstoreResponseError(
        operation.operationId,
        response.status,
        contentType,
        'is not a response the spec documents for it',
      );
    }
    throw new PetstoreError(
      operation.operationId,
      response.status,
      { code: error.code as never, message: error.message },
      retryAfter,
    );
  }
  if (typeof value === 'object' && value !== null) {
    responses.set(value, {
      status: response.status,
      headers: response.headers,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      attempts,
    });
  }
  return value;
}
