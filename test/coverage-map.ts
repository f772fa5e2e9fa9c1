// tap's coverage-map (.taprc): every test file is measured against the service and the scripts it
// exercises, never against test/ itself, whose failure branches run only when a test fails.
export default function coverageMap(): string[] {
  return ['src/**/*.ts', 'scripts/**/*.ts'];
}
