// Quotas on their own: the policy's syntax, the token bucket, and its division among instances.
import t from 'tap';
import { createQuotas, parseQuota, type QuotaPolicy } from '../../src/limits/quotas.js';

t.test('a quota is <requests>/<window>', async (t) => {
  t.same(parseQuota('100/1s'), { requests: 100, windowSeconds: 1 });
  t.same(parseQuota('6000/1m'), { requests: 6000, windowSeconds: 60 });
  t.same(parseQuota('50000/2h'), { requests: 50000, windowSeconds: 7200 });
  for (const bad of ['100', '100/s', '0/1s', '10/0s', '1.5/1s', '10/1d', ' 10/1s', '-1/1s'])
    t.equal(parseQuota(bad), undefined, bad);
});

t.test('each client gets its quota, or the default; over it, a rejection that says when to come back', async (t) => {
  let now = 0;
  const quotas = createQuotas(
    () => 1,
    () => now,
  );
  const policy: QuotaPolicy = {
    default: { requests: 3, windowSeconds: 1 },
    clients: new Map([['reporting', { requests: 1, windowSeconds: 10 }]]),
  };
  for (let index = 0; index < 3; index++) t.equal(quotas.take('app', policy), undefined, `app ${index + 1} of 3`);
  t.same(quotas.take('app', policy), {
    policy: 'default',
    quota: { requests: 3, windowSeconds: 1 },
    retryAfterSeconds: 1,
  });
  t.equal(quotas.take('reporting', policy), undefined);
  t.same(quotas.take('reporting', policy), {
    policy: 'client',
    quota: { requests: 1, windowSeconds: 10 },
    retryAfterSeconds: 10,
  });
  now += 1000 / 3;
  t.equal(quotas.take('app', policy), undefined, 'a third of a second later: one more');
  t.equal(quotas.take('nobody', { clients: new Map() }), undefined, 'no quota: never refused');
});

t.test('with N instances each takes 1/N of the quota, so that together they accept the quota', async (t) => {
  let now = 0;
  let live = 3;
  const quotas = createQuotas(
    () => live,
    () => now,
  );
  const policy: QuotaPolicy = { default: { requests: 30, windowSeconds: 1 }, clients: new Map() };
  let admitted = 0;
  // 10 s of a client calling far faster than its quota: every millisecond.
  for (; now < 10_000; now += 1) if (quotas.take('app', policy) === undefined) admitted += 1;
  t.ok(Math.abs(admitted - 100) <= 11, `one instance of three admits a third of 30 a second: ${admitted} in 10 s`);
  live = 1;
  t.equal(quotas.take('app', policy), undefined, 'another count of instances: a new bucket, full');
});
