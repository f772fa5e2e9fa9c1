// npm run compat -- record, as a function: records the spec as the release of its info.version, byte
// for byte, beside the earlier releases. A released version is never changed afterwards: a spec
// that differs from a release of the same version is refused, and so is one older than the newest.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { DEFAULT_SPEC_PATH, loadSpec } from '../../src/openapi/openapi-spec.js';
import type { Output } from '../contract/run-checks.js';
import { compareVersions, isReleaseVersion, loadReleases, releaseFileOf, RELEASES_DIR } from './releases.js';

const USAGE = `usage: npm run compat -- record [-- --spec <file>] [--releases <dir>]

Records openapi.yaml as the release of its info.version, in docs/releases/openapi-<version>.yaml.
Run npm run compat first: it holds the spec's service to every earlier release.`;

/** Returns the exit status: 0 when recorded (or recorded already), 1 when refused. */
export function recordRelease(argv: string[], output: Output = console): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        spec: { type: 'string', default: DEFAULT_SPEC_PATH },
        releases: { type: 'string', default: RELEASES_DIR },
      },
    }));
  } catch (error) {
    output.error(`release: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  const refuse = (message: string) => {
    output.error(`release: ${message}`);
    return 1;
  };
  try {
    const spec = loadSpec(values.spec);
    const version = spec.info?.version;
    if (!isReleaseVersion(version)) return refuse(`info.version ${String(version)} is not MAJOR.MINOR.PATCH`);
    const releases = loadReleases(values.releases);
    const file = join(values.releases, releaseFileOf(version));
    const shown = relative(process.cwd(), file);
    if (existsSync(file)) {
      if (isDeepStrictEqual(loadSpec(file), spec)) {
        output.log(`release: ${version} is released already, as this document (${shown})`);
        return 0;
      }
      return refuse(
        `${version} is released already (${shown}) and differs from this document: give it a new info.version (PATCH for wording, MINOR for additions, MAJOR for a breaking change)`,
      );
    }
    const newest = releases.at(-1);
    if (newest !== undefined && compareVersions(version, newest.version) < 0)
      return refuse(`${version} is older than the newest release, ${newest.version}`);
    writeFileSync(file, readFileSync(values.spec));
    output.log(`release: recorded ${version} as ${shown}; commit it with the spec`);
    return 0;
  } catch (error) {
    return refuse((error as Error).message);
  }
}
