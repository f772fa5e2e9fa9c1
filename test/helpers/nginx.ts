// nginx with the configuration the project ships (deploy/nginx/petstore.conf), moved to a test's
// own ports and folder, for the tests that put it in front of several instances (test/system/).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';

export const NGINX = '/usr/sbin/nginx';

/** Why an nginx test cannot run here (it throws where REQUIRE_NGINX_TEST=1), or undefined when it can. */
export function whyNoNginx(): string | undefined {
  if (existsSync(NGINX)) return undefined;
  if (process.env['REQUIRE_NGINX_TEST'] === '1')
    throw new Error(
      `the nginx test is required here (REQUIRE_NGINX_TEST=1) but ${NGINX} is missing: apt-get install nginx-light`,
    );
  return `no ${NGINX} (apt-get install nginx-light)`;
}

/**
 * The status of a GET on a connection of its own, closed after: the check leaves no connection for the instance to wait
 * out.
 */
export function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) =>
    get(url, { agent: false }, (response) => resolve(response.resume().statusCode!)).on('error', reject),
  );
}

export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * nginx with the shipped configuration, its listen address and upstream servers moved to these
 * ports; with `retries: false`, every proxy_next_upstream is `off`: a failed attempt is served as it failed.
 */
export async function startNginx(
  t: Test,
  dir: string,
  { listen, upstreams, retries = true }: { listen: number; upstreams: number[]; retries?: boolean },
): Promise<void> {
  const shipped = readFileSync(join(PROJECT_ROOT, 'deploy', 'nginx', 'petstore.conf'), 'utf8');
  let index = 0;
  const config = (
    retries ? shipped : shipped.replace(/^(\s*)proxy_next_upstream [^;\n#]*;/gm, '$1proxy_next_upstream off;')
  )
    .replace(/listen 127\.0\.0\.1:8080;/, `listen 127.0.0.1:${listen};`)
    .replace(/server 127\.0\.0\.1:300\d /g, () => `server 127.0.0.1:${upstreams[index++]} `);
  t.equal(index, upstreams.length, 'the shipped configuration lists three upstream servers');
  if (!retries)
    t.equal(
      config.match(/^\s*proxy_next_upstream off;$/gm)?.length,
      shipped.match(/^\s*proxy_next_upstream /gm)?.length,
      'every proxy_next_upstream is off',
    );
  mkdirSync(join(dir, 'logs'), { recursive: true });
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), config);
  const nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => nginx.on('exit', resolve));
  t.teardown(async () => {
    nginx.kill('SIGQUIT');
    await exited;
  });
  await until('nginx', async () => (await statusOf(`http://127.0.0.1:${listen}/health/live`)) === 200);
}
