// The Link header (RFC 8288) that announces the next page of a list. Its target is an
// absolute-path reference: behind a proxy the service cannot know the public scheme and host, and a
// client resolves the path against the URL it sent the request to (RFC 3986, section 5).
import type { OrderStatus, PetId, PetStatus } from '../types/api.js';
import { encodeCursor } from './cursor.js';

/**
 * `<path?name=value&…&cursor=…>; rel="next"`: the request's query in the order given, a parameter
 * it did not send left out, then the cursor. Every value is one the spec's patterns keep to
 * characters a query takes as they are (limits, statuses, ids, client names, base64url cursors).
 */
export function nextLink(
  path: string,
  query: [name: string, value: string | number | bigint | undefined][],
  cursor: string,
) {
  const sent = query.filter(([, value]) => value !== undefined).map(([name, value]) => `${name}=${value}&`);
  return `<${path}?${sent.join('')}cursor=${cursor}>; rel="next"`;
}

/** listPets' and listOrders' next page, after the last pet or order of this one. */
export function nextPageLink(
  path: string,
  page: {
    limit: number;
    status: PetStatus | OrderStatus | undefined;
    /** listOrders' pet filter. */
    petId?: PetId | undefined;
    /** listOrders' client filter. */
    placedBy?: string | undefined;
    lastId: PetId;
  },
): string {
  const { limit, status, petId, placedBy } = page;
  const cursor = encodeCursor({ after: page.lastId, status, petId, placedBy });
  return nextLink(
    path,
    [
      ['limit', limit],
      ['status', status],
      ['petId', petId],
      ['placedBy', placedBy],
    ],
    cursor,
  );
}
