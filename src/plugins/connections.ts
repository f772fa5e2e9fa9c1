// Connections while the instance drains and while it closes: every response closes its
// connection, so that no client or proxy keeps one to reuse, and the service never has to close a
// connection under a request; long polls respond at once, so that the close does not wait for them.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { EventSignal } from '../events/event-signal.js';

async function connections(
  app: FastifyInstance,
  { draining, events }: { draining: () => boolean; events: EventSignal },
) {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    events.close();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing || draining()) reply.header('connection', 'close');
    done(null, payload);
  });
}

export default fp(connections, { name: 'connections' });
