// No module imports itself through others: a circle makes the order of evaluation matter, and a
// module of a circle cannot be read, tested or moved on its own. Type-only imports count: they tie
// the files together all the same. madge reads every import of src/, scripts/, generated/ and test/.
import madge from 'madge';
import t from 'tap';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/project-root.js';

t.test('no import circles in the project', async (t) => {
  const graph = await madge(
    ['src', 'scripts', 'generated', 'test'].map((dir) => join(PROJECT_ROOT, dir)),
    {
      baseDir: PROJECT_ROOT,
      fileExtensions: ['ts'],
      tsConfig: join(PROJECT_ROOT, 'tsconfig.json'),
      excludeRegExp: [/(^|\/)dist\//, /\.d\.ts$/],
    },
  );
  t.ok(Object.keys(graph.obj()).length > 200, `madge read the project (${Object.keys(graph.obj()).length} files)`);
  t.same(graph.circular(), [], 'no circle');
});
