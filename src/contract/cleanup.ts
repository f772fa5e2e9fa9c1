// A live run removes at its end what it created and the document lets it remove: every object a
// link from a write's answer names to a DELETE operation is deleted once, with the values the link
// gave. A header the link filled from the answer (If-Match, from an ETag) is sent as `*`: the run
// may have changed the object since, and it is the run's own. Already gone (404), or the operation
// retired (410): nothing to do. Generic: the operations and links come from the document alone.
import fc from 'fast-check';
import type { Cleanup } from './live-options.js';
import { bigintText, normalized } from './response-checks.js';
import { RateLimited, Retired, type RunState } from './run-state.js';
import { linkedHeadersOf } from './spec-links.js';

export async function removeCreated(run: RunState, seed: number): Promise<Cleanup> {
  const { contract, generators, linked, links, sender } = run;
  const outcome: Cleanup = { removed: 0, failures: [] };
  for (const operation of contract.operations.filter((candidate) => candidate.method === 'delete')) {
    const headers = linkedHeadersOf(links, operation.operationId);
    const done = new Set<string>();
    for (const values of linked.get(operation.operationId)?.values() ?? []) {
      const [generated] = fc.sample(generators.validRequest(operation), { numRuns: 1, seed });
      const { request } = generators.relinked(generated!, values);
      // One delete per object, whatever tags the links gave for it over the run.
      if (done.has(request.url)) continue;
      done.add(request.url);
      const named = `${request.method} ${request.url} (${JSON.stringify(normalized(values), bigintText)})`;
      let status: number;
      try {
        status = (
          await sender.send({
            ...request,
            headers: { ...request.headers, ...Object.fromEntries(headers.map((name) => [name, '*'])) },
          })
        ).statusCode;
      } catch (error) {
        if (error instanceof Retired) continue;
        if (!(error instanceof RateLimited)) throw error;
        status = 429;
      }
      if (status >= 200 && status < 300) outcome.removed += 1;
      else if (status !== 404) outcome.failures.push(`${named} → ${status}`);
    }
  }
  return outcome;
}
