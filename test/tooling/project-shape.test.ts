// The project's shape, as issue 65 set it: at most 15 npm scripts, and src/app.ts and src/server.ts
// each the list of what the service is made of and starts, importing at most 15 modules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/project-root.js';

const MODULE = /^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gm;

/** The modules a source file imports or re-exports from, each once. */
function modulesOf(text: string): string[] {
  return [...new Set([...text.matchAll(MODULE)].map((match) => match[1]!))];
}

t.test('at most 15 npm scripts', async (t) => {
  const { scripts } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const names = Object.keys(scripts);
  t.ok(names.length <= 15, `${names.length}: ${names.join(', ')}`);
});

t.test('src/app.ts and src/server.ts each import at most 15 modules', async (t) => {
  for (const file of ['src/app.ts', 'src/server.ts']) {
    const modules = modulesOf(readFileSync(join(PROJECT_ROOT, file), 'utf8'));
    t.ok(modules.length >= 5 && modules.length <= 15, `${file}: ${modules.length} modules`);
  }
});

t.test('the count sees imports, type imports and re-exports, each module once', async (t) => {
  t.same(
    modulesOf(
      "import a from 'a';\nimport type { B } from './b.js';\nexport { c } from './c.js';\nimport { d } from 'a';\n",
    ),
    ['a', './b.js', './c.js'],
  );
});
