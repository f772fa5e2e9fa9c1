// The webhook endpoints of the API, their attempt log, resends and skipped counts, as every PetStore
// keeps them, run by each store's own test file: an endpoint changed or removed only at the version
// it was read at; attempts in the order they were made, paged and by event; resends in the order
// asked; events passed over (purged unaccepted, skipped by an operator) counted, of the types the
// endpoint takes; a removed endpoint's state, attempts and resends gone with it.
import type { Test } from 'tap';
import type { LoggedAttempt, PetStore } from '../../src/store/pet-store.js';
import { apiEndpointKey, type EndpointFields } from '../../src/store/webhook-endpoint-store.js';
import type { StoreFactory } from './pet-store-conformance.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const FIELDS: EndpointFields = {
  url: 'https://hooks.example/pets?token=t',
  events: ['pet.deleted', 'pet.created'],
  description: 'the shop',
  disabled: false,
  secrets: [{ secret: SECRET, expiresAt: null }],
};

const attempt = (event: number, status: number | undefined, at: number): LoggedAttempt => ({
  at,
  event,
  status,
  result: status === undefined ? 'timed_out' : status < 300 ? 'delivered' : 'failed',
  durationMs: 12,
  error: status === undefined ? 'no response within 15000 ms' : status < 300 ? undefined : `responded with ${status}`,
  resend: false,
});

async function seqsOf(store: PetStore): Promise<number[]> {
  return (await store.listEvents(undefined, 1000)).events.map(({ seq }) => seq);
}

export function webhookConformance(t: Test, createStore: StoreFactory): void {
  t.test('endpoints of the API: added, read, listed oldest first, changed and removed at their version', async (t) => {
    const store = await createStore(t);
    const endpoints = store.webhookEndpoints;
    const added = await endpoints.add('ep_one', FIELDS);
    t.match(added, { ...FIELDS, id: 'ep_one', version: 1 });
    t.ok(added.createdAt > Date.now() - 60_000, 'when it was added');
    await endpoints.add('ep_two', { ...FIELDS, events: null, description: null });
    t.same(await endpoints.get('ep_one'), added, 'read as added');
    t.equal(await endpoints.get('ep_none'), null);
    t.same(
      (await endpoints.list()).map(({ id }) => id),
      ['ep_one', 'ep_two'],
    );
    const rotated = [
      { secret: SECRET.replace('A', 'B'), expiresAt: null },
      { secret: SECRET, expiresAt: 1e13 },
    ];
    const changed = await endpoints.replace('ep_one', 1, { ...FIELDS, secrets: rotated, disabled: true });
    t.match(changed, { id: 'ep_one', version: 2, secrets: rotated, disabled: true, createdAt: added.createdAt });
    t.same(await endpoints.replace('ep_one', 1, FIELDS), { current: changed }, 'a stale version changes nothing');
    t.equal(await endpoints.replace('ep_none', 1, FIELDS), null);
    t.same(await endpoints.remove('ep_one', 1), { current: changed }, 'nor removes');
    t.equal(await endpoints.remove('ep_one', 2), true);
    t.equal(await endpoints.remove('ep_one', 2), null, 'gone');
    t.same(
      (await endpoints.list()).map(({ id }) => id),
      ['ep_two'],
    );
  });

  t.test('the attempt log: in the order made, paged, by event; resends in the order asked', async (t) => {
    const store = await createStore(t);
    const key = 'crm';
    const log = store.deliveries;
    await log.logAttempt(key, attempt(4, 503, 1000));
    await log.logAttempt(key, attempt(4, undefined, 2000));
    await log.logAttempt('other', attempt(4, 204, 2500));
    await log.logAttempt(key, attempt(4, 204, 3000));
    await log.logAttempt(key, { ...attempt(5, 204, 4000), resend: true });
    const all = await log.attempts(key, { limit: 10 });
    t.equal(all.more, false);
    t.same(
      all.attempts.map(({ n: _n, ...rest }) => rest),
      [
        attempt(4, 503, 1000),
        attempt(4, undefined, 2000),
        attempt(4, 204, 3000),
        { ...attempt(5, 204, 4000), resend: true },
      ],
    );
    const first = await log.attempts(key, { limit: 2 });
    t.equal(first.more, true);
    const second = await log.attempts(key, { limit: 2, after: first.attempts[1]!.n });
    t.same(second.attempts, all.attempts.slice(2), 'the next page starts after the last one');
    t.same((await log.attempts(key, { limit: 10, event: 5 })).attempts, all.attempts.slice(3), 'of one event');
    t.equal(await log.nextResend(key), undefined);
    await log.resend(key, 7);
    await log.resend(key, 3);
    const next = (await log.nextResend(key))!;
    t.equal(next.event, 7, 'the oldest asked first');
    await log.resent(key, next.n);
    t.equal((await log.nextResend(key))!.event, 3);
  });

  t.test('a removed endpoint takes its state, attempts and resends with it', async (t) => {
    const store = await createStore(t);
    await store.webhookEndpoints.add('ep_gone', FIELDS);
    const key = apiEndpointKey('ep_gone');
    t.ok(await store.deliveries.claim(key, 'one', 10_000, { types: null }));
    await store.deliveries.logAttempt(key, attempt(1, 204, 1000));
    await store.deliveries.resend(key, 1);
    t.equal(await store.webhookEndpoints.remove('ep_gone', 1), true);
    t.same((await store.deliveries.attempts(key, { limit: 10 })).attempts, []);
    t.equal(await store.deliveries.nextResend(key), undefined);
    t.ok(await store.deliveries.claim(key, 'two', 10_000), 'no lease left');
  });

  t.test('events passed over unaccepted are counted: purged, or skipped by an operator, of its types', async (t) => {
    const store = await createStore(t);
    const every = 'every';
    const deletions = 'deletions';
    t.ok(await store.deliveries.claim(every, 'one', 10_000, { types: null }));
    t.ok(await store.deliveries.claim(deletions, 'one', 10_000, { types: ['pet.deleted'] }));
    const pet = await store.create({ name: 'Rex', categoryId: 1 });
    await store.update(pet.id, { name: 'Max' }, '*');
    await store.remove(pet.id, '*');
    const [, , removal] = await seqsOf(store);
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal(await store.purgeEvents(0), 3);
    const states = await store.deliveries.read([every, deletions]);
    t.equal(states.get(every)!.skipped, 3, 'every type: the three purged');
    t.equal(states.get(deletions)!.skipped, 1, 'deletions only: the one removal');

    // An operator skips: the events of its types between where it stood and the new position.
    await store.create({ name: 'Bo', categoryId: 1 });
    await store.create({ name: 'Cy', categoryId: 1 });
    const skipped = await store.deliveries.setPosition(every, undefined);
    t.equal(skipped.skipped, 5, 'two more skipped');
    t.equal((await store.deliveries.setPosition(deletions, undefined)).skipped, 1, 'none of its types');
    t.equal((await store.deliveries.setPosition(every, removal)).skipped, 5, 'moving back skips nothing');
  });

  t.test("a file endpoint's state kept under its URL before 1.7.0 is taken over under its id", async (t) => {
    const store = await createStore(t);
    await store.create({ name: 'Rex', categoryId: 1 });
    const url = 'https://a.example/hooks';
    const old = (await store.deliveries.claim(url, 'old', 10_000))!;
    t.ok(await store.deliveries.record(url, 'old', { ...old, position: 0 }, 10_000), 'it stood at the start');
    await store.create({ name: 'Max', categoryId: 1 });
    const adopted = await store.deliveries.claim('shop', 'new', 10_000, { types: null, adopt: url });
    t.equal(adopted!.position, 0, 'where the URL stood, not after the newest event');
    const fresh = await store.deliveries.claim('crm', 'new', 10_000, { types: null, adopt: 'https://b.example/none' });
    t.equal(fresh!.position, (await seqsOf(store)).at(-1), 'none to take over: after the newest event');
  });
}
