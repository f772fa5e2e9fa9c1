// The contract engine (src/contract/) is a package of its own: it imports nothing outside its folder
// but Node's built-ins and the dependencies its package.json names, and it type-checks alone.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const ENGINE = join(ROOT, 'src', 'contract');
const manifest = JSON.parse(readFileSync(join(ENGINE, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g;

/** Every import of a TypeScript file: its specifier, and where it leads for a relative one. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => (match[1] ?? match[2])!);
}

t.test('the engine imports nothing outside itself but its declared dependencies', async (t) => {
  const files = readdirSync(ENGINE, { recursive: true, encoding: 'utf8' }).filter(
    (name) => name.endsWith('.ts') && !name.startsWith('dist'),
  );
  t.ok(files.length > 10, `${files.length} files read`);
  const outside: string[] = [];
  for (const name of files) {
    for (const specifier of importsOf(join(ENGINE, name))) {
      if (specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) {
        const target = relative(ENGINE, resolve(ENGINE, dirname(name), specifier));
        if (target.startsWith('..')) outside.push(`${name} imports ${specifier}`);
        continue;
      }
      const packageName = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0]!;
      if (!(packageName in manifest.dependencies)) outside.push(`${name} imports ${specifier}, not a dependency`);
    }
  }
  t.same(outside, [], "every import is the engine's own, Node's or a declared dependency");
});

t.test('an import from outside is caught', async (t) => {
  const imports = importsOf(join(ROOT, 'scripts', 'contract', 'pet-store', 'subject.ts'));
  t.ok(
    imports.some((specifier) => specifier.includes('src/app.js')),
    "the project side (the plug-in's subject) imports the service, and the scan sees it",
  );
});

t.test('the engine type-checks alone, with its own tsconfig', async (t) => {
  const tsc = join(ROOT, 'node_modules', 'typescript-7', 'lib', 'tsc.js');
  const { stdout } = await promisify(execFile)(process.execPath, [tsc, '-p', ENGINE], { cwd: ROOT });
  t.equal(stdout, '', 'no error');
});
