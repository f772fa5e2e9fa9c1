// Sends generated requests to a running deployment over real HTTP (npm run contract): the same
// requests the in-process properties send through `inject`, to one base URL or to several in turn
// (instances behind no balancer, sharing one database).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseJson } from './exact-json.js';
import type { ApiRequest } from './api-requests.js';
import type { LiveResponse, LiveSender } from './live-checks.js';

/** Longest Retry-After honoured; a target asking for more is waited on for this long, then retried. */
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_RATE_LIMITED_RETRIES = 10;

export interface TargetOptions {
  /** Base URLs ending in the spec's base path (`…/v1`); requests go to each in turn. */
  urls: URL[];
  /** That base path, with which generated request URLs begin. */
  basePath: string;
  /** Per-request limit: a request without a response by then is a violation (a hang). */
  timeoutMs: number;
}

/** A request that got no response: the target is unreachable, or hung. */
export class NoResponse extends Error {}

export interface Target extends LiveSender {
  /** The URL a request goes to (the next one in turn, without advancing). */
  urlOf(request: ApiRequest, index?: number): URL;
  /**
   * Requests sent, and responses that were 429 (retried after Retry-After, never counted as violations), in all and by
   * operation.
   */
  counts(): { sent: number; rateLimited: number; rateLimitedBy: ReadonlyMap<string, number> };
}

export function httpTarget({ urls, basePath, timeoutMs }: TargetOptions): Target {
  let sent = 0;
  let rateLimited = 0;
  const rateLimitedBy = new Map<string, number>();
  let turn = 0;
  const urlOf = (request: ApiRequest, index = turn) => {
    // A next link, already resolved against the response that carried it, is followed as it is.
    if (/^https?:\/\//.test(request.url)) return new URL(request.url);
    const base = urls[index % urls.length]!;
    const path = request.url.startsWith(basePath) ? request.url.slice(basePath.length) : request.url;
    // The request's path and query are appended as they are: percent-encoding included, never normalized.
    return new URL(`${base.origin}${base.pathname.replace(/\/$/, '')}${path}`);
  };
  const once = (url: URL, request: ApiRequest) =>
    new Promise<LiveResponse>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      // The body's length is given, as inject gives it: never chunked.
      const headers =
        request.payload === undefined
          ? request.headers
          : { ...request.headers, 'content-length': String(Buffer.byteLength(request.payload)) };
      const outgoing = send(
        url,
        { method: request.method, headers, signal: AbortSignal.timeout(timeoutMs) },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', (error) =>
            reject(new NoResponse(`${request.method} ${url}: the response broke off: ${error.message}`)),
          );
          incoming.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = parseJson(body);
            } catch {
              json = undefined;
            }
            resolve({
              url: url.toString(),
              statusCode: incoming.statusCode ?? 0,
              headers: incoming.headers as IncomingHttpHeaders & Record<string, unknown>,
              body,
              json,
            });
          });
        },
      );
      outgoing.on('error', (error) =>
        reject(
          new NoResponse(
            error.name === 'AbortError' || error.name === 'TimeoutError'
              ? `${request.method} ${url}: no response within ${timeoutMs} ms`
              : `${request.method} ${url}: ${error.message}`,
          ),
        ),
      );
      outgoing.end(request.payload);
    });
  return {
    async send(request) {
      const url = urlOf(request);
      turn += 1;
      for (let attempt = 0; ; attempt++) {
        sent += 1;
        const response = await once(url, request);
        if (response.statusCode !== 429 || attempt >= MAX_RATE_LIMITED_RETRIES) return response;
        rateLimited += 1;
        rateLimitedBy.set(request.operationId, (rateLimitedBy.get(request.operationId) ?? 0) + 1);
        await sleep(retryAfterMs(response.headers['retry-after']));
      }
    },
    urlOf,
    counts: () => ({ sent, rateLimited, rateLimitedBy }),
  };
}

/** Retry-After as seconds or an HTTP date (RFC 9110, 10.2.3); one second when absent or unreadable. */
export function retryAfterMs(value: unknown): number {
  const text = String(value ?? '').trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - Date.now();
  return Math.min(MAX_RETRY_AFTER_MS, Number.isFinite(ms) && ms >= 0 ? ms : 1000);
}
