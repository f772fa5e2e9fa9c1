// The Link header (RFC 8288) that announces the next page of listPets and listOrders. Its target
// is an absolute-path reference: behind a proxy the service cannot know the public scheme and host,
// and a client resolves the path against the URL it sent the request to (RFC 3986, section 5).
import type { OrderStatus, PetId, PetStatus } from '../types/api.js';
import { encodeCursor } from './cursor.js';

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
  const status = page.status === undefined ? '' : `&status=${page.status}`;
  const petId = page.petId === undefined ? '' : `&petId=${page.petId}`;
  const placedBy = page.placedBy === undefined ? '' : `&placedBy=${page.placedBy}`;
  const cursor = encodeCursor({ after: page.lastId, status: page.status, petId: page.petId, placedBy: page.placedBy });
  return `<${path}?limit=${page.limit}${status}${petId}${placedBy}&cursor=${cursor}>; rel="next"`;
}
