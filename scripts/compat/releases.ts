// The released versions of the interface: every version of openapi.yaml that clients were given,
// kept as it was released, in docs/releases/openapi-<version>.yaml (npm run compat -- record records
// one). npm run compat holds the service to each of them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { loadSpec, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';

export const RELEASES_DIR = join(PROJECT_ROOT, 'docs', 'releases');

/** Released versions are plain MAJOR.MINOR.PATCH (semver without pre-release or build). */
const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
const FILE = /^openapi-(.+)\.yaml$/;

export interface Release {
  version: string;
  /** Its file name, as reports name it. */
  file: string;
  spec: OpenApiDocument;
}

export function isReleaseVersion(version: unknown): version is string {
  return typeof version === 'string' && VERSION.test(version);
}

/** Orders versions by precedence: negative when `a` comes first. */
export function compareVersions(a: string, b: string): number {
  const [pa, pb] = [a, b].map((version) => VERSION.exec(version)!.slice(1).map(BigInt));
  for (let index = 0; index < 3; index++) {
    if (pa![index]! !== pb![index]!) return pa![index]! < pb![index]! ? -1 : 1;
  }
  return 0;
}

export const releaseFileOf = (version: string) => `openapi-${version}.yaml`;

/** Every release in `dir`, oldest first. A file whose name and info.version disagree stops the caller. */
export function loadReleases(dir: string = RELEASES_DIR): Release[] {
  const releases = readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => {
      const version = FILE.exec(file)?.[1];
      if (!isReleaseVersion(version))
        throw new Error(`${join(dir, file)}: a release is named openapi-MAJOR.MINOR.PATCH.yaml`);
      const spec = loadSpec(join(dir, file));
      if (spec.info?.version !== version)
        throw new Error(`${join(dir, file)}: its info.version is ${String(spec.info?.version)}, not ${version}`);
      return { version, file, spec };
    });
  return releases.sort((a, b) => compareVersions(a.version, b.version));
}
