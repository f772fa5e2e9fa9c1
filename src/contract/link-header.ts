// Reads a next-page link (`Link: <target>; rel="next"`) as a client does.
const NEXT = /^<([^>]*)>; rel="next"$/;

/**
 * The target of a `Link: <target>; rel="next"` header value; undefined when there is none, or when
 * it is not of that form (which the contract checks report against openapi.yaml).
 */
export function nextTarget(link: unknown): string | undefined {
  return link === undefined || link === null ? undefined : NEXT.exec(String(link))?.[1];
}

/**
 * The next page's URL, resolved against the URL the answer came from as a client resolves it
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
