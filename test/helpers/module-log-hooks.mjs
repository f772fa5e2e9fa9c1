// Module hooks (node:module register) that append every URL an ES import resolves to, to the file
// named by MODULE_LOG: a test can then tell which modules a process loaded.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
