// The client's types, apart from its runtime (call.ts): generated/client-api.ts names them, and
// the runtime reads generated/client-api.ts's error codes, so neither imports the other's module.

/**
 * Where a JSON value holds plain numbers. Every integer literal of a response is parsed as a bigint,
 * exactly; this says which of them the spec does not declare int64, to be turned back into numbers:
 * 'n' (this value), { p: {...} } (these properties), { i: ... } (every item), or null (none).
 */
export type NumberPlaces = 'n' | { p: Record<string, NumberPlaces> } | { i: NumberPlaces } | null;

/** What generated/client-api.ts records of each operation. */
export interface OperationSpec {
  readonly operationId: string;
  readonly method: string;
  /** As the spec writes it, below the base URL: `/pets/{petId}`. */
  readonly path: string;
  readonly successStatuses: readonly number[];
  /** An idempotent method, or a request carrying an Idempotency-Key: sending it again cannot do it twice. */
  readonly retrySafe: boolean;
  readonly idempotencyKey: boolean;
  /** The body's media type (a JSON one: application/json, application/merge-patch+json). */
  readonly mediaType: string;
  /** Header parameters (lower case) and the call option that carries each: `{ "if-match": "ifMatch" }`. */
  readonly headerOptions: Readonly<Record<string, string>>;
  /** Per documented status, where its JSON holds plain numbers rather than int64s. */
  readonly numbers: Readonly<Record<string, NumberPlaces>>;
}

/** What a caller passes: int64 values as a bigint or, up to 2^53, a number. */
export type Loose<T> = T extends bigint
  ? bigint | number
  : T extends readonly (infer I)[]
    ? Loose<I>[]
    : T extends object
      ? { [K in keyof T]: Loose<T[K]> }
      : T;
export type ItemOf<T> = T extends readonly (infer I)[] ? I : never;

export interface CallOptions {
  /** Abandons the call, retries included. */
  signal?: AbortSignal;
}
export interface KeyedCallOptions extends CallOptions {
  /** The Idempotency-Key for this create (a new UUID when left out); every retry sends the same one. */
  idempotencyKey?: string;
}

export interface Page<T> {
  items: T[];
  /** The URL of the next page (the response's `Link: <…>; rel="next"`, resolved), or undefined on the last. */
  next: string | undefined;
}

/** Every item of every page, in order (`for await`), or `.pages()` for one page at a time. */
export interface Paginated<T> extends AsyncIterable<T> {
  pages(): AsyncIterable<Page<T>>;
}

/** What one response was, besides its body: see responseOf. */
export interface ResponseInfo {
  status: number;
  headers: Headers;
  /** `Idempotent-Replayed: true`: the service returned a retry with what an earlier attempt made. */
  replayed: boolean;
  /** How many requests were sent for this response (1 when the first one was served). */
  attempts: number;
}

export interface Logger {
  warn(message: string): void;
}

export interface CallSettings {
  baseUrl: string;
  apiKey: string;
  logger: Logger;
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
  /** Send the highest Store-Position seen with every call that takes one (store-position.ts). */
  readYourWrites: boolean;
}

export interface Parts {
  path: Record<string, unknown>;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

export interface Call {
  send(operation: OperationSpec, parts: Parts, options?: KeyedCallOptions): Promise<never>;
  paginate(operation: OperationSpec, parts: Parts, options?: CallOptions): Paginated<never>;
}
