// The Pet Store's paging rule, which the engine does not know: a next page keeps the list's path,
// its `limit` and its `status`.
import { nextTarget } from 'openapi-contract-engine';

/**
 * The next page's URL, resolved against the URL the response came from as a client resolves it
 * (RFC 3986, section 5), when the link keeps that path, `limit` and `status`; undefined otherwise.
 */
export function keptNextPage(
  link: unknown,
  from: string,
  { limit, status }: { limit: number; status: unknown },
): URL | undefined {
  const target = nextTarget(link);
  if (target === undefined) return undefined;
  const resolved = new URL(target, from);
  const params = resolved.searchParams;
  const keeps =
    resolved.pathname === new URL(from).pathname &&
    params.get('limit') === String(limit) &&
    (params.get('status') ?? undefined) === status;
  return keeps ? resolved : undefined;
}
