// The floor under any response: Node's HTTP server alone, responding every request with the bytes of
// one rejection (its status, headers and body as the service sent them, REFUSAL in the environment,
// as JSON). What a rejection costs the service above this is the service's own; the rest is Node's
// HTTP and the kernel's TCP, which any response pays. Started by the benchmark
// (scripts/bench/measure-fairness.ts); prints {port, rss} when ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reportReady } from './seed-pets.js';

const { status, headers, body } = JSON.parse(process.env['REFUSAL']!) as {
  status: number;
  headers: Record<string, string>;
  body: string;
};
const server = createServer((request, response) => {
  request.resume();
  response.writeHead(status, headers).end(body);
});
server.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
