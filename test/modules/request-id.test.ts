import t from 'tap';
import { requestIdGenerator } from '../../src/request-id.js';

t.test('request ids never repeat, within a process or across processes', async (t) => {
  const first = requestIdGenerator();
  const second = requestIdGenerator(); // as another process, or the same one after a restart
  const ids = [...Array.from({ length: 1000 }, first), ...Array.from({ length: 1000 }, second)];
  t.equal(new Set(ids).size, ids.length, 'all distinct');
  t.not(ids[0]!.slice(0, 12), ids[1000]!.slice(0, 12), 'each generator has its own random prefix');
  t.ok(
    ids.every((id) => /^[A-Za-z0-9_-]{12}-\d+$/.test(id)),
    'URL-safe: a random prefix and a counter',
  );
});
