// A create sent in two halves over a raw socket, so that a test can stop the service while the
// request is in flight. `Expect: 100-continue` makes the server say when it has read the request's
// head (its 100 Continue): stopping it sooner would find the connection idle and close it
// without a response, as it should, and a fixed wait can be that soon on a busy machine.
import { connect } from 'node:net';

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
const BODY = '{"name":"Rex","categoryId":1}';

export interface InFlightRequest {
  /** Resolves once the server has read the head: from then on the request is in flight. */
  headRead: Promise<void>;
  /** Sends the rest of the body. */
  finish(): void;
  /** What the server served after its 100 Continue, once the connection is closed. */
  closed: Promise<string>;
}

export function inFlightCreate(port: number, apiKey: string): InFlightRequest {
  const socket = connect(port, '127.0.0.1');
  let response = '';
  let headRead!: () => void;
  const head = new Promise<void>((resolve) => (headRead = resolve));
  socket.on('data', (chunk) => {
    response += chunk;
    if (response.startsWith(CONTINUE)) headRead();
  });
  // A reset ends the response as a close does; what the server had said is kept, and the test's
  // assertions on it say what is missing.
  socket.on('error', (error) => (response += `\n(${error.message})`));
  const closed = new Promise<string>((resolve) =>
    socket.on('close', () => resolve(response.startsWith(CONTINUE) ? response.slice(CONTINUE.length) : response)),
  );
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
      `Expect: 100-continue\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 10)}`,
  );
  return { headRead: head, finish: () => socket.write(BODY.slice(10)), closed };
}
