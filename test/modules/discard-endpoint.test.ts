// The one webhook endpoint of a service run in process by the contract checks: fixed, at the
// discard port on loopback, never changing, never closed for good.
import t from 'tap';
import { oneWebhookEndpoint } from '../../src/webhooks/discard-endpoint.js';

t.test('one endpoint, named as asked, at the discard port, taking every type; it never changes', async (t) => {
  const endpoints = oneWebhookEndpoint('checks');
  const [endpoint, ...more] = endpoints.current();
  t.same(more, [], 'one');
  t.match(endpoint, { id: 'checks', url: 'http://127.0.0.1:9/hooks', events: undefined });
  t.equal(endpoint!.secrets.length, 1, 'one secret');
  let changed = 0;
  endpoints.onChange(() => changed++);
  endpoints.close();
  t.equal(changed, 0, 'no change is ever told');
  t.equal(endpoints.current()[0], endpoint, 'the same endpoint after close');
});
