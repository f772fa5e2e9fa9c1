// The in-memory store's attempt log keeps the newest 10,000 attempts of an endpoint, as its feed
// keeps the newest events: an endpoint failing for days costs bounded memory.
import t from 'tap';
import { MemoryEventLog } from '../../src/store/memory-events.js';
import { memoryWebhooks } from '../../src/store/memory-webhooks.js';

t.test('the newest 10,000 attempts of an endpoint are kept; a resend of none is nothing to do', async (t) => {
  const { deliveries } = memoryWebhooks(new MemoryEventLog());
  for (let event = 1; event <= 10_001; event++)
    await deliveries.logAttempt('crm', { at: event, event, result: 'failed', durationMs: 1, resend: false });
  const first = await deliveries.attempts('crm', { limit: 1 });
  t.equal(first.attempts[0]!.event, 2, 'the oldest went');
  const last = await deliveries.attempts('crm', { limit: 100, after: first.attempts[0]!.n + 9_998 });
  t.same(
    last.attempts.map(({ event }) => event),
    [10_001],
    'the newest kept',
  );
  await deliveries.resent('none', 1);
  t.equal(await deliveries.nextResend('none'), undefined);
});
