// A deliberate regression for the instruction gate's test (test/system/instruction-gate.test.ts),
// loaded into the service with node --import: every answer gets one more header, built dearly (a
// digest of the request's line and headers), as a careless change to every answer would.
import { createHash } from 'node:crypto';
import http from 'node:http';

const writeHead = http.ServerResponse.prototype.writeHead;
http.ServerResponse.prototype.writeHead = function (...args) {
  const { method, url, headers } = this.req;
  this.setHeader(
    'x-answer-digest',
    createHash('sha256')
      .update(`${method} ${url} ${JSON.stringify(headers)}`)
      .digest('hex'),
  );
  return writeHead.apply(this, args);
};
