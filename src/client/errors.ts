// What a call of the client rejects with.
import type { ErrorCode } from '../../generated/client-api.js';

/** The service responded with an Error body (any non-2xx the spec documents). */
export class PetstoreError extends Error {
  override readonly name = 'PetstoreError';
  /** One of the spec's error codes. */
  readonly code: ErrorCode;

  constructor(
    readonly operationId: string,
    /** The HTTP status, which the body's `status` repeats. */
    readonly status: number,
    /** The Error body's code and message. */
    error: { code: ErrorCode; message: string },
    /** Seconds the service asked to wait before a retry (`Retry-After`), when it said. */
    readonly retryAfter?: number,
  ) {
    super(error.message);
    this.code = error.code;
  }
}

/** A response that is not what the spec documents for the operation: another status, media type or body. */
export class PetstoreResponseError extends Error {
  override readonly name = 'PetstoreResponseError';
  constructor(
    readonly operationId: string,
    readonly status: number,
    readonly contentType: string | null,
    detail: string,
  ) {
    super(`${operationId}: the response (status ${status}, content type ${contentType ?? 'none'}) ${detail}`);
  }
}

/** No response: the connection failed or was lost, or no response came within `timeoutMs`, on every attempt. */
export class PetstoreConnectionError extends Error {
  override readonly name = 'PetstoreConnectionError';
  constructor(
    readonly operationId: string,
    readonly attempts: number,
    message: string,
    options: { cause: unknown },
  ) {
    super(`${operationId}: ${message} (${attempts} attempt${attempts === 1 ? '' : 's'})`, options);
  }
}
