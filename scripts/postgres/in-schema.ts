// A connection string for a schema of its own, for the tests and the property campaign.

/** The connection string whose connections use `schema` (search_path) and these server settings. */
export function inSchema(url: string, schema: string, settings: Record<string, string> = {}): string {
  const withOptions = new URL(url);
  const options = Object.entries({ search_path: schema, ...settings }).map(([name, value]) => `-c ${name}=${value}`);
  withOptions.searchParams.set('options', options.join(' '));
  return withOptions.toString();
}
