// Fair share as shipped, on the built service as a process: a client alone at full speed is never
// refused; while another key floods it from 64 connections, the flood is refused with the
// documented 429 and its fields, and the calm client never is.
import type { LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { flood } from '#tools/bench';
import { checkContract } from '../helpers/contract.js';
import { startServer, type Running } from '../helpers/server-process.js';

const CALM = 'calm-key-0123456789abcdefghijklm';
const FLOOD = 'flood-key-0123456789abcdefghijkl';

t.setTimeout(120_000);

async function stop(server: Running): Promise<void> {
  server.child.kill('SIGINT');
  await server.exited;
}

async function get(port: number, key: string): Promise<LightMyRequestResponse> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=20`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await response.text();
  // The shape the contract checks read (light-my-request's).
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body,
    json: () => JSON.parse(body),
  } as unknown as LightMyRequestResponse;
}

const floodOf = (port: number, key: string, seconds: number) =>
  flood(`http://127.0.0.1:${port}/v1/pets?limit=20`, `Bearer ${key}`, seconds);

t.test('a client alone, at full speed from 64 connections, is never refused', async (t) => {
  const server = await startServer({ API_KEYS: `calm:${CALM},flood:${FLOOD}` });
  t.teardown(() => stop(server));
  const result = await floodOf(server.port, FLOOD, 3);
  t.ok(result.responded > 1000, `${result.responded} answers`);
  t.equal(result.total, result.responded, 'not one refused');
});

t.test(
  'a flood from one key is refused with the documented 429; the calm client with another key never is',
  async (t) => {
    const server = await startServer({ API_KEYS: `calm:${CALM},flood:${FLOOD}`, LOG_LEVEL: 'info' });
    t.teardown(() => stop(server));
    const flooding = floodOf(server.port, FLOOD, 5);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const calm = new Map<number, number>();
    let rejection: LightMyRequestResponse | undefined;
    const until = performance.now() + 3_000;
    while (performance.now() < until) {
      const response = await get(server.port, CALM);
      calm.set(response.statusCode, (calm.get(response.statusCode) ?? 0) + 1);
      if (rejection === undefined) {
        const flooded = await get(server.port, FLOOD);
        if (flooded.statusCode === 429) rejection = flooded;
      }
    }
    const floodResult = await flooding;
    t.same([...calm.keys()], [200], `the calm client: every request answered 200 (${calm.get(200)})`);
    t.ok(floodResult.refused > 0, `the flood was refused (${floodResult.refused} of ${floodResult.total})`);
    t.ok(floodResult.responded > 0, 'and still served its share');
    t.ok(rejection, 'a rejection caught');
    checkContract(t, rejection!, 'listPets');
    t.match(rejection!.json(), {
      code: 'TOO_MANY_REQUESTS',
      status: 429,
      message: /busy and this client holds more than its share/,
    });
    t.equal(rejection!.headers['retry-after'], '1');
    t.match(rejection!.headers['ratelimit-policy'], /^"fair";q=\d+;w=1$/);
    t.equal(rejection!.headers['ratelimit'], '"fair";r=0;t=1');
    // The log: no line per refused request; a summary per client and reason.
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    t.equal(
      lines.filter((line) => line['msg'] === 'request completed' && line['status'] === 429).length,
      0,
      'no request line for a refused request',
    );
    t.ok(
      lines.some(
        (line) => line['client'] === 'flood' && line['reason'] === 'fair-share' && typeof line['refused'] === 'number',
      ),
      'a summary line for the flood',
    );
  },
);
