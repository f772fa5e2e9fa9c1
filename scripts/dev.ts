// `npm run dev`: the maintainer's watch mode. Watches openapi.yaml and src/; on a change it
// regenerates generated/ (when the spec changed), builds the service as npm start does
// (scripts/build-if-stale.mjs: tsc type-checks src/ and generated/, then the served spec is
// rebuilt) and restarts it on the in-memory store. The tests and the client are not built here
// (npm test builds and checks them): without them a rebuild is about three times quicker. The API
// key is written once to .api-key and kept across restarts, so a terminal's $KEY stays valid.
// A change that does not build is reported and the last good build keeps serving; the watcher
// never exits on an error (Ctrl-C stops it and the service).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { writeOneOffKey } from '../src/auth/one-off-key.js';
import { isUsableKey } from '../src/auth/bearer-token.js';

const ROOT = process.cwd();
const SPEC = 'openapi.yaml';
const KEY_FILE = join(ROOT, '.api-key');
/**
 * What `npm run build` or `npm test` in another terminal writes under src/ (the client package's build): no edit of the
 * maintainer's.
 */
const BUILT = new Set([join(ROOT, 'src', 'client', 'dist')]);
/** Edits arrive as bursts of events (an editor's save is several writes and a rename). */
const SETTLE_MS = 150;

/**
 * The key in .api-key when there is one (npm start's or an earlier run's); otherwise a new one, written there (mode
 * 600).
 */
async function keptKey(file: string): Promise<string> {
  const current = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  return isUsableKey(current) ? current : writeOneOffKey(file);
}

const say = (line: string) => console.error(`dev: ${line}`);

/** Runs a command in the project; true when it exited 0. Its output goes to this terminal. */
function run(command: string, args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    /* c8 ignore next -- npm or node itself missing: npm run dev was started by both */
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

const key = await keptKey(KEY_FILE);
let service: ChildProcess | undefined;
let specChanged = true;
let pending = false;
let running = false;
let timer: NodeJS.Timeout | undefined;

async function stopService(): Promise<void> {
  const child = service;
  if (child === undefined) return;
  // The exit handler clears `service` first, so this child is still running.
  service = undefined;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // SIGINT: the service closes at once, without the drain a SIGTERM starts.
  child.kill('SIGINT');
  await exited;
}

function startService(): void {
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, API_KEYS: key },
  });
  child.once('exit', (code, signal) => {
    if (service === child) {
      service = undefined;
      say(`the service exited (${code ?? signal}); fix the cause and save a file to start it again`);
    }
  });
  service = child;
}

/** One regenerate-build-restart cycle; changes that arrive meanwhile make one more afterwards. */
async function rebuild(): Promise<void> {
  if (running) {
    pending = true;
    return;
  }
  running = true;
  try {
    const serving = () => (service === undefined ? 'no service is running' : 'the last good build keeps serving');
    const regenerate = specChanged;
    specChanged = false;
    if (regenerate && !(await run('npm', ['run', '-s', 'generate']))) {
      // Still to do: a save under src/ alone must not build against the last good spec's types.
      specChanged = true;
      say(`${SPEC} did not generate (above); ${serving()}. Watching.`);
      return;
    }
    if (!(await run(process.execPath, ['scripts/build-if-stale.mjs']))) {
      say(`the build failed (above); ${serving()}. Watching.`);
      return;
    }
    await stopService();
    startService();
    say(`serving the new build (pid ${service!.pid}); the key is in .api-key (unchanged). Watching ${SPEC} and src/.`);
  } finally {
    running = false;
    if (pending) {
      pending = false;
      void rebuild();
    }
  }
}

function changed(spec: boolean): void {
  if (spec) specChanged = true;
  clearTimeout(timer);
  timer = setTimeout(() => void rebuild(), SETTLE_MS);
}

/**
 * Calls `onChange` on any change under `dir`, new folders included. Each folder gets a watch of its
 * own: a folder's watch sees a file replaced by a rename (as `sed -i` and many editors save), which
 * a watch on the file itself, or Node 20's recursive watch on Linux, loses track of.
 */
function watchTree(dir: string, onChange: () => void): void {
  const watched = new Set<string>();
  const add = (folder: string) => {
    if (BUILT.has(folder)) return;
    if (!watched.has(folder)) {
      watched.add(folder);
      const watcher = watch(folder, (event, name) => {
        if (BUILT.has(join(folder, String(name)))) return;
        if (event === 'rename') add(folder);
        onChange();
      });
      /* c8 ignore next 4 -- a removed folder's watch ends quietly on Linux; elsewhere it may report an error */
      watcher.on('error', () => {
        watcher.close();
        watched.delete(folder);
      });
    }
    const entries = existsSync(folder) ? readdirSync(folder, { withFileTypes: true }) : [];
    for (const entry of entries) if (entry.isDirectory()) add(join(folder, entry.name));
  };
  add(dir);
}

// The folder, not the file, for the same reason.
watch(ROOT, (_event, name) => {
  if (name === SPEC) changed(true);
});
watchTree(join(ROOT, 'src'), () => changed(false));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    clearTimeout(timer);
    void stopService().then(() => process.exit(0));
  });
}
say(`watching ${SPEC} and src/; the API key is in .api-key and stays the same across restarts`);
void rebuild();
