// The client keeps the highest Store-Position it has seen and sends it with every call whose
// operation takes one (test/system/replica-reads.test.ts runs it against replicas).
import t from 'tap';
import { createCall, type OperationSpec } from '../call.js';
import { laterPosition } from '../store-position.js';

t.test('positions of one store compare by their number; another store replaces them', async (t) => {
  t.equal(laterPosition(undefined, '0a0b0c0d-5'), '0a0b0c0d-5');
  t.equal(laterPosition('0a0b0c0d-5', '0a0b0c0d-12'), '0a0b0c0d-12', 'as numbers, not as text');
  t.equal(laterPosition('0a0b0c0d-12', '0a0b0c0d-5'), '0a0b0c0d-12', 'never back');
  t.equal(
    laterPosition('0a0b0c0d-9223372036854775806', '0a0b0c0d-9223372036854775807'),
    '0a0b0c0d-9223372036854775807',
  );
  t.equal(laterPosition('0a0b0c0d-12', 'ffffffff-3'), 'ffffffff-3', 'a store restored or failed over: its own');
  t.equal(laterPosition('0a0b0c0d-12', 'not a position'), '0a0b0c0d-12', 'what is not a position is not kept');
  t.equal(laterPosition(undefined, 'not a position'), 'not a position');
});

const read: OperationSpec = {
  operationId: 'readThing',
  method: 'GET',
  path: '/things',
  successStatuses: [200],
  retrySafe: true,
  idempotencyKey: false,
  mediaType: 'application/json',
  headerOptions: { 'store-position': 'storePosition' },
  numbers: {},
};
const write: OperationSpec = { ...read, operationId: 'makeThing', method: 'POST', headerOptions: {} };

function recording(answers: (string | undefined)[]) {
  const sent: (string | null)[] = [];
  const fetch = async (_input: unknown, init?: RequestInit) => {
    sent.push(new Headers(init!.headers).get('store-position'));
    const position = answers.shift();
    return new Response('{}', {
      status: 200,
      headers: {
        'content-type': 'application/json',
        ...(position === undefined ? {} : { 'store-position': position }),
      },
    });
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
}

const settings = {
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: 'a-test-key',
  logger: { warn: () => undefined },
  maxRetries: 0,
  timeoutMs: 1_000,
};

t.test('the highest position seen goes with every read, with no code from the caller', async (t) => {
  const { sent, fetch } = recording(['0a0b0c0d-7', '0a0b0c0d-3', undefined, '0a0b0c0d-9']);
  const call = createCall({ ...settings, fetch, readYourWrites: true });
  await call.send(write, { path: {} });
  await call.send(read, { path: {} });
  await call.send(write, { path: {} });
  await call.send(read, { path: {} });
  t.same(sent, [null, '0a0b0c0d-7', null, '0a0b0c0d-7'], 'a write takes none; an older answer lowers nothing');
  await call.send(read, { path: {} }, { storePosition: '0a0b0c0d-1' } as never);
  t.equal(sent.at(-1), '0a0b0c0d-1', "the caller's own wins");
});

t.test('readYourWrites: false sends none', async (t) => {
  const { sent, fetch } = recording(['0a0b0c0d-7', '0a0b0c0d-8']);
  const call = createCall({ ...settings, fetch, readYourWrites: false });
  await call.send(read, { path: {} });
  await call.send(read, { path: {} });
  t.same(sent, [null, null]);
});
