// `npm run bench -- client`: what the typed client's exact JSON costs. The CPU of this process per page
// of 100 pets read with the client (`listPets().pages()`: fetch, the lossless parse, the numbers
// put back) against the same page read with fetch + JSON.parse, in the same run, from the built
// service on 127.0.0.1 (its own process, so its CPU is not counted). Rounds alternate the two and
// the ratio is the median over rounds. docs/performance/client.md, "The client", reports it.
//   npm run bench -- client [--rounds 15] [--pages 400]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from 'petstore-client';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { freePort } from 'throwaway-postgres';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '15' }, pages: { type: 'string', default: '400' } },
});
const rounds = Number(values.rounds);
const pages = Number(values.pages);
if (!(rounds >= 1 && pages >= 1)) {
  console.error('usage: npm run bench -- client [--rounds 15] [--pages 400]');
  process.exit(2);
}

const key = randomBytes(24).toString('base64url');
const port = await freePort();
const service = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'server.js')], {
  env: { ...process.env, API_KEYS: key, PORT: String(port), METRICS_PORT: 'off', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
process.on('exit', () => service.kill('SIGKILL'));
const baseUrl = `http://127.0.0.1:${port}/v1`;
for (let attempt = 0; ; attempt++) {
  const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
    (response) => response.ok,
    () => false,
  );
  if (ready) break;
  if (attempt === 100) throw new Error('the service did not start');
  await new Promise((resolve) => setTimeout(resolve, 100));
}

const client = createClient({ baseUrl, apiKey: key });
// Pets whose ids and categories need all 64 bits, as exactness is what the parse pays for.
for (let index = 0; index < 100; index++)
  await client.createPet({
    name: `Pet number ${index}`,
    categoryId: 9_000_000_000_000_000_000n + BigInt(index),
    status: 'available',
  });
const url = `${baseUrl}/pets?limit=100`;
const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };

async function plainPage(): Promise<number> {
  const response = await fetch(url, { headers });
  return (JSON.parse(await response.text()) as unknown[]).length;
}
async function clientPage(): Promise<number> {
  for await (const page of client.listPets({ limit: 100 }).pages()) return page.items.length;
  return 0;
}

/** CPU seconds of this process for `pages` pages read by `read`. */
async function cpuOf(read: () => Promise<number>): Promise<number> {
  const before = process.cpuUsage();
  for (let index = 0; index < pages; index++) if ((await read()) !== 100) throw new Error('a page of 100 was expected');
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1e6;
}

// Warm both paths up before anything is measured.
await cpuOf(plainPage);
await cpuOf(clientPage);
const ratios: number[] = [];
const perPage = { plain: [] as number[], client: [] as number[] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? [plainPage, clientPage] : [clientPage, plainPage];
  const [first, second] = [await cpuOf(order[0]!), await cpuOf(order[1]!)];
  const [plain, viaClient] = round % 2 === 0 ? [first, second] : [second, first];
  perPage.plain.push((plain / pages) * 1e6);
  perPage.client.push((viaClient / pages) * 1e6);
  ratios.push(viaClient / plain);
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
console.log(
  `Node ${process.version}, ${rounds} rounds of ${pages} pages of 100 pets:\n` +
    `  fetch + JSON.parse: ${median(perPage.plain).toFixed(0)} µs of CPU per page\n` +
    `  client (listPets().pages()): ${median(perPage.client).toFixed(0)} µs of CPU per page\n` +
    `  client ÷ fetch + JSON.parse: ${median(ratios).toFixed(2)} (median; rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
);
service.kill('SIGINT');
