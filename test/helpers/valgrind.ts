// Whether valgrind is here, and whether a test must run under it all the same: .ci/run installs it
// and sets REQUIRE_VALGRIND_TEST=1, so there a test that needs it runs (and fails without it),
// never skips.
import { execFileSync } from 'node:child_process';

export const VALGRIND_REQUIRED = process.env['REQUIRE_VALGRIND_TEST'] === '1';

export const hasValgrind = (() => {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
