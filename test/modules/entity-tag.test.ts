// Entity tags keep their form: a tag a client holds from an earlier release still matches. The
// form, as issued since tags were introduced: `"<version>-<check>"`, the check 8 hex digits of
// 32-bit FNV-1a over `<epoch>:<id>:<version>`.
import { randomBytes, randomInt } from 'node:crypto';
import t from 'tap';
import { entityTagOf, entityTagsOf, preconditionOf } from '../../src/preconditions/entity-tag.js';

function issuedForm(epoch: string, id: number | bigint, version: number): string {
  const text = `${epoch}:${id}:${version}`;
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return `"${version}-${(hash >>> 0).toString(16).padStart(8, '0')}"`;
}

const IDS = [1, 9, 10, 255, 65_536, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER, 2n ** 53n + 1n, 2n ** 63n - 1n];

t.test('every tag has the form tags were issued in, whatever its hash', async (t) => {
  const checks = new Set<string>();
  for (let round = 0; round < 500; round++) {
    const epoch = randomBytes(4).toString('hex');
    const id = round < IDS.length ? IDS[round]! : randomInt(1, 2 ** 47);
    const version = randomInt(1, 2 ** 40);
    const tag = entityTagOf(epoch, id, version);
    t.equal(tag, issuedForm(epoch, id, version), `${epoch} ${id} ${version}`);
    checks.add(tag.slice(-9, -7));
  }
  t.ok(checks.size > 100, 'checks with every leading byte, high bit set or not');
});

t.test("a page's Pet-ETags are its pets' tags, in order, and each is accepted back", async (t) => {
  const epoch = randomBytes(4).toString('hex');
  const pets = IDS.map((id) => ({ id }));
  const versions = IDS.map((_, index) => index + 1);
  const header = entityTagsOf(epoch, pets, versions);
  t.equal(header, IDS.map((id, index) => issuedForm(epoch, id, index + 1)).join(', '));
  for (const [index, tag] of header.split(', ').entries())
    t.same(preconditionOf(tag, epoch, IDS[index]!), [index + 1], `tag ${index + 1} matches its pet`);
  t.same(preconditionOf(header.split(', ')[0], epoch, IDS[1]!), [], "not another pet's");
  t.equal(entityTagsOf(epoch, [], []), '');
});
