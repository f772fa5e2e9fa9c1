// Swagger UI at /docs in a real browser: Debian's Chromium, driven by playwright-core. It sees the
// operations, authorizes with a key, and uses "Try it out" to create, list and sell pets on this
// instance (the sale with the ETag in If-Match and a merge-patch body).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import t from 'tap';
import { operationsOf } from '../../src/openapi/openapi-spec.js';
import { API_KEY, AUTH, buildTestApp } from '../helpers/build-app.js';
import { specWith } from '../helpers/spec.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
// .ci/run sets this: there the browser test must run, never skip.
const REQUIRED = process.env['REQUIRE_BROWSER_TEST'] === '1';
const SCREENSHOTS = join(process.cwd(), 'test-output', 'screenshots');

const missing = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (install it with "apt-get install -y chromium", or set CHROMIUM_PATH)`;
if (missing !== undefined && REQUIRED)
  t.fail(`the browser test is required here (REQUIRE_BROWSER_TEST=1) but there is ${missing}`);
if (missing !== undefined) console.error(`# SKIPPED the Swagger UI browser test: ${missing}`);
// A cold Chromium under a busy test run (four test processes on two cores) can take most of tap's
// default 30 s; CI once ran past it on the last step.
t.setTimeout(120_000);

async function tryItOut(
  page: Page,
  operationId: string,
  body?: string,
  parameters: Record<string, string> = {},
): Promise<{ status: string; response: string }> {
  const block = page.locator(`#operations-pets-${operationId}`);
  await block.locator('.opblock-summary').click();
  await block.locator('button.try-out__btn').click();
  for (const [name, value] of Object.entries(parameters))
    await block.locator(`tr[data-param-name="${name}"] input`).fill(value);
  if (body !== undefined) await block.locator('textarea.body-param__text').fill(body);
  await block.locator('button.execute').click();
  const status = block.locator('.live-responses-table tbody .response-col_status');
  await status.waitFor();
  return {
    status: (await status.innerText()).trim(),
    response: await block.locator('.live-responses-table tbody .response-col_description pre').first().innerText(),
  };
}

t.test(
  'Swagger UI at /docs shows the operations and "Try it out" works against this instance',
  { skip: REQUIRED ? false : (missing ?? false) },
  async (t) => {
    // listPets marked beta, as a spec may mark any operation (x-stability): the page must say so.
    const spec = specWith((spec) => Object.assign(spec.paths['/pets']!.get!, { 'x-stability': 'beta' }));
    const { app } = await buildTestApp(t, { spec });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const profile = await mkdtemp(join(tmpdir(), 'petstore-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    t.teardown(async () => {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    });
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);

    await page.goto(`http://127.0.0.1:${port}/docs`);
    // Every operation of the spec, under its first tag, shown as deprecated exactly when the spec says so.
    for (const { operationId, object } of operationsOf(spec)) {
      const tag = (object as { tags?: string[] }).tags?.[0] ?? 'default';
      const block = page.locator(`#operations-${tag}-${operationId}`);
      await block.waitFor();
      const shown = (await block.getAttribute('class')) ?? '';
      t.equal(
        /opblock-deprecated/.test(shown),
        object.deprecated === true,
        `${operationId} is shown${object.deprecated === true ? ' as deprecated' : ', not deprecated'}`,
      );
    }
    // The spec's webhooks (OpenAPI 3.1's top-level `webhooks`), each delivery with its event schema.
    const webhooks = page.locator('.webhooks');
    await webhooks.waitFor();
    t.match(
      await webhooks.innerText(),
      /Webhooks[\s\S]*pet\.created[\s\S]*pet\.updated[\s\S]*pet\.deleted/,
      'the three webhooks are shown',
    );
    const getPet = page.locator('#operations-pets-getPet');
    await getPet.locator('.opblock-summary').click();
    // Swagger UI lists an operation's extensions in a table of their own, a row each.
    const sunsetRow = getPet.locator('tr', { has: page.locator('td', { hasText: /^x-sunset$/ }) });
    await sunsetRow.waitFor();
    t.match(
      await sunsetRow.innerText(),
      /^x-sunset\s+"2030-12-05"$/,
      "getPet's announced sunset is shown with it (its x- extensions)",
    );
    const listPetsBlock = page.locator('#operations-pets-listPets');
    await listPetsBlock.locator('.opblock-summary').click();
    const stabilityRow = listPetsBlock.locator('tr', { has: page.locator('td', { hasText: /^x-stability$/ }) });
    await stabilityRow.waitFor();
    t.match(await stabilityRow.innerText(), /^x-stability\s+"beta"$/, "listPets' stability is shown with it");
    // The roles of each operation's security requirement, in its description.
    t.match(
      await listPetsBlock.locator('.opblock-description-wrapper').first().innerText(),
      /Roles: pets:read\. A key without it gets 403 INSUFFICIENT_SCOPE\./,
      "listPets' role is shown with it",
    );
    const createPetBlock = page.locator('#operations-pets-createPet');
    await createPetBlock.locator('.opblock-summary').click();
    t.match(
      await createPetBlock.locator('.opblock-description-wrapper').first().innerText(),
      /Roles: pets:write\./,
      "createPet's role is shown with it",
    );
    await createPetBlock.locator('.opblock-summary').click();
    await listPetsBlock.locator('.opblock-summary').click();

    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input').fill(API_KEY);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('button.btn-done').click();

    const name = `Browser Rex ${Date.now()}`;
    const created = await tryItOut(page, 'createPet', JSON.stringify({ name, categoryId: 3, status: 'available' }));
    t.equal(created.status, '201', 'createPet answered 201 in the page');
    const pet = JSON.parse(created.response) as { id: number; name: string };
    t.equal(pet.name, name, 'the page shows the created pet');

    const stored = await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: AUTH });
    t.same(
      JSON.parse(stored.body),
      { id: pet.id, name, categoryId: 3, status: 'available' },
      'the instance stored the pet the page created',
    );

    const sold = await tryItOut(page, 'updatePet', '{"status":"sold"}', {
      petId: String(pet.id),
      'If-Match': String(stored.headers['etag']),
    });
    t.equal(sold.status, '200', 'updatePet answered 200 in the page, with the ETag in If-Match and a merge patch');
    t.same(
      JSON.parse(sold.response),
      { id: pet.id, name, categoryId: 3, status: 'sold' },
      'the page shows the sold pet',
    );
    const listed = await tryItOut(page, 'listPets');
    t.equal(listed.status, '200', 'listPets answered 200 in the page');
    t.same(
      JSON.parse(listed.response),
      [{ ...JSON.parse(stored.body), status: 'sold' }],
      'the list in the page is what the instance holds',
    );
    t.match(
      await page.locator('#operations-pets-listPets .request-url').innerText(),
      `http://127.0.0.1:${port}/v1/pets`,
      'the page called this instance',
    );
    const listPets = page.locator('#operations-pets-listPets');
    t.equal(await listPets.locator('tr[data-param-name="cursor"]').count(), 1, 'the cursor parameter is shown');
    t.match(
      await listPets.locator('.responses-wrapper').innerText(),
      /Link[\s\S]*rel="next"/,
      'the next-page Link header of the 200 is shown',
    );

    await mkdir(SCREENSHOTS, { recursive: true });
    const file = join(SCREENSHOTS, 'swagger-ui.png');
    // The visible part is enough to see what went wrong; a full-page capture of the expanded page is
    // the slowest step of the test.
    await page.screenshot({ path: file });
    t.ok(existsSync(file), `screenshot saved to ${file}`);
  },
);
