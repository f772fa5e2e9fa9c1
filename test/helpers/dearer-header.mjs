// A deliberate regression for the instruction gate's test (test/system/instruction-gate.smoke.ts),
// loaded into the service with node --import: every response gets one more header, built dearly (a
// digest of the request's line and headers, chained ROUNDS times), as a careless change to every
// response would. One digest (about 5,000 instructions) was less than two processes of the same
// service differ by (about 30,000: docs/performance.md), so the test failed when the plain count
// was the dearer of the two; chained, the regression costs several times that difference.
import { createHash } from 'node:crypto';
import http from 'node:http';

const ROUNDS = 24;

const writeHead = http.ServerResponse.prototype.writeHead;
http.ServerResponse.prototype.writeHead = function (...args) {
  const { method, url, headers } = this.req;
  let digest = `${method} ${url} ${JSON.stringify(headers)}`;
  for (let round = 0; round < ROUNDS; round++) digest = createHash('sha256').update(digest).digest('hex');
  this.setHeader('x-answer-digest', digest);
  return writeHead.apply(this, args);
};
