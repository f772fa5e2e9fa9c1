// A proxy on 127.0.0.1 in front of a real service that breaks one promise of the contract at a
// time: it forwards a request changed, changes the response, or never responds. The contract runner's
// tests use it to show that each kind of broken server is caught.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { parseJson } from '../../src/validation/strict-json.js';
import { toJson } from 'openapi-contract-engine';

export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
/** What a misbehaving server does to an exchange: forward it changed, change the response, or never respond. */
export interface Fault {
  request?(exchange: Exchange): Exchange;
  response?(exchange: Exchange, reply: Reply): Reply | 'hang';
}

// int64 values pass through exactly, as the service writes them.
export const json = (reply: Reply) => parseJson(reply.body.toString('utf8')) as any;
export const withJson = (reply: Reply, body: unknown): Reply => ({ ...reply, body: Buffer.from(toJson(body)) });

async function listening(t: Test, server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

const readAll = (stream: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });

/**
 * A proxy in front of the service on `upstream` (a port of 127.0.0.1) that applies `fault` to every exchange; its port.
 */
export async function faultyProxy(t: Test, upstream: number, fault: Fault): Promise<number> {
  const hung = new Set<IncomingMessage>();
  const proxy = createServer(async (incoming, outgoing) => {
    const sent: Exchange = {
      method: incoming.method!,
      url: incoming.url!,
      headers: { ...incoming.headers },
      body: await readAll(incoming),
    };
    const exchange = fault.request?.(sent) ?? sent;
    const { host: _host, ...headers } = exchange.headers;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const forwarded = request(
        {
          host: '127.0.0.1',
          port: upstream,
          method: exchange.method,
          path: exchange.url,
          headers: { ...headers, 'content-length': String(exchange.body.length) },
        },
        resolve,
      );
      forwarded.on('error', reject);
      forwarded.end(exchange.body);
    });
    const { 'content-length': _length, 'transfer-encoding': _encoding, ...responseHeaders } = response.headers;
    const received: Reply = { status: response.statusCode!, headers: responseHeaders, body: await readAll(response) };
    const reply = fault.response?.(exchange, received) ?? received;
    if (reply === 'hang') return void hung.add(incoming);
    outgoing.writeHead(reply.status, { ...reply.headers, 'content-length': String(reply.body.length) });
    outgoing.end(reply.body);
  });
  t.teardown(() => proxy.closeAllConnections());
  return listening(t, proxy);
}
