// Requests Node's HTTP parser rejects never reach Fastify's routing; they are served here,
// on the raw socket, in the same Error shape as everything else.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorBody } from '../types/api.js';
import { BadRequest, HeadersTooLarge, RequestTimeout } from './api-errors.js';

/** `headers`: sent on every response of the API (lower-case names), these included. */
export function createClientErrorHandler(headers: Readonly<Record<string, string>>) {
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (error: NodeJS.ErrnoException, socket: Socket) => handleClientError(error, socket, extra);
}

function handleClientError(error: NodeJS.ErrnoException, socket: Socket, extra: string) {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new HeadersTooLarge()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new RequestTimeout()
        : new BadRequest('The request is not valid HTTP/1.1.');
  const status = apiError.statusCode;
  const body = JSON.stringify({ code: apiError.code, message: apiError.message, status } satisfies ErrorBody);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      extra +
      'Connection: close\r\n\r\n' +
      body,
  );
}
