// The released versions of the interface (docs/releases/) and openapi.yaml agree: a version that
// is released is never edited afterwards, so an edit of openapi.yaml comes with a new
// info.version; and npm run compat -- record records a version once, byte for byte.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import { compareVersions, isReleaseVersion, loadReleases, recordRelease } from '#tools/compat';
import { DEFAULT_SPEC_PATH, loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';
import { specWith } from '../helpers/spec.js';

const spec = loadSpec();
const releases = loadReleases();

t.test("openapi.yaml's version is released as this very document, or newer than every release", async (t) => {
  const version = spec.info.version;
  t.ok(isReleaseVersion(version), `info.version ${version} is MAJOR.MINOR.PATCH`);
  const same = releases.find((release) => release.version === version);
  if (same !== undefined) {
    t.ok(
      isDeepStrictEqual(same.spec, spec),
      `openapi.yaml is ${same.file} as released; an edit needs a new info.version`,
    );
  } else {
    t.ok(
      compareVersions(version, releases.at(-1)!.version) > 0,
      `${version} is newer than ${releases.at(-1)!.version}, the newest release`,
    );
  }
});

t.test('versions order by MAJOR, MINOR, PATCH as numbers', async (t) => {
  t.ok(compareVersions('1.0.0', '1.0.1') < 0);
  t.ok(compareVersions('1.10.0', '1.9.9') > 0);
  t.ok(compareVersions('2.0.0', '10.0.0') < 0);
  t.equal(compareVersions('1.2.3', '1.2.3'), 0);
  t.notOk(isReleaseVersion('1.0'));
  t.notOk(isReleaseVersion('1.0.0-rc.1'));
  t.notOk(isReleaseVersion('01.0.0'));
});

t.test('npm run compat -- record records a new version once, byte for byte, and never changes a release', async (t) => {
  const dir = t.testdir({ releases: {} });
  const releasesDir = join(dir, 'releases');
  const lines: string[] = [];
  const output = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const record = (file: string) => recordRelease(['--spec', file, '--releases', releasesDir], output);
  const write = (name: string, change: (spec: OpenApiDocument) => void) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(specWith(change)));
    return file;
  };

  t.equal(record(DEFAULT_SPEC_PATH), 0, 'the first release');
  t.equal(
    readFileSync(join(releasesDir, `openapi-${spec.info.version}.yaml`), 'utf8'),
    readFileSync(DEFAULT_SPEC_PATH, 'utf8'),
    'recorded byte for byte',
  );
  t.equal(record(DEFAULT_SPEC_PATH), 0, 'the same document again: nothing to do');
  t.match(lines.at(-1), /is released already, as this document/);

  t.equal(
    record(write('edited.json', (spec) => void (spec.info.title = 'Edited'))),
    1,
    'an edit under a released version',
  );
  t.match(lines.at(-1), /is released already .* and differs from this document: give it a new info\.version/);

  const [major, minor, patch] = spec.info.version.split('.').map(Number) as [number, number, number];
  const next = `${major}.${minor + 1}.0`;
  t.equal(record(write('next.yaml', (spec) => void (spec.info.version = next))), 0, `${next}: a new version`);
  t.same(
    loadReleases(releasesDir).map((release) => release.version),
    [spec.info.version, next],
  );

  t.equal(
    record(write('older.json', (spec) => void (spec.info.version = `${major}.${minor}.${patch + 1}`))),
    1,
    'a version older than the newest release',
  );
  t.match(lines.at(-1), /is older than the newest release/);
  t.equal(
    record(write('unversioned.json', (spec) => void (spec.info.version = 'draft'))),
    1,
    'a version that is not MAJOR.MINOR.PATCH',
  );
  t.match(lines.at(-1), /info\.version draft is not MAJOR\.MINOR\.PATCH/);
  t.equal(record(join(dir, 'missing.yaml')), 1, 'no such file');
  t.match(lines.at(-1), /release: ENOENT/);
  t.equal(recordRelease(['--bogus'], output), 1, 'an unknown option');
  t.match(lines.at(-1), /Unknown option '--bogus'/);
});
