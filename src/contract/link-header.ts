// Reads a next-page link (`Link: <target>; rel="next"`) as a client does.
const NEXT = /^<([^>]*)>; rel="next"$/;

/**
 * The target of a `Link: <target>; rel="next"` header value; undefined when there is none, or when
 * it is not of that form (which the contract checks report against openapi.yaml).
 */
export function nextTarget(link: unknown): string | undefined {
  return link === undefined || link === null ? undefined : NEXT.exec(String(link))?.[1];
}
