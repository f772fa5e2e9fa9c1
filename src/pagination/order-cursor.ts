// listOrders' page cursors, opaque as listPets' are (cursor.ts) and of the same form: the filters
// they were issued for and the last id of the page they follow, "v1:<status>[.<petId>]:<id>", so
// that a cursor sent with other filters is refused rather than silently reading another sequence.
import { ValidationFailed } from '../errors/api-errors.js';
import type { OrderId, OrderStatus, PetId } from '../types/api.js';
import { INT64_MAX, exactInteger } from '../validation/int64.js';

const VERSION = 'v1';
// VERSION:status.petId:id, the status empty and the petId left out when not sent.
const DECODED = new RegExp(`^${VERSION}:([a-z]*)(?:\\.(-?[0-9]{1,19}))?:([1-9][0-9]{0,18})$`);
const FIX = 'send the cursor of a Link rel="next" header unchanged, or leave it out to start from the first page';

export interface OrderFilter {
  status: OrderStatus | undefined;
  petId: PetId | undefined;
}

export function encodeOrderCursor(after: OrderId, { status, petId }: OrderFilter): string {
  const pet = petId === undefined ? '' : `.${petId}`;
  return Buffer.from(`${VERSION}:${status ?? ''}${pet}:${after}`, 'latin1').toString('base64url');
}

/** The id a page starts after, or a 400 naming the cursor when it was not issued for these filters. */
export function orderPositionOf(cursor: string, { status, petId }: OrderFilter): OrderId {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = DECODED.exec(text);
  // Base64url decoding skips what it cannot read; only the canonical encoding of a valid text is a cursor.
  if (match === null || Buffer.from(text, 'latin1').toString('base64url') !== cursor)
    throw new ValidationFailed(`query parameter cursor is not a cursor this service issued; ${FIX}`);
  if (match[1] !== (status ?? '') || match[2] !== (petId === undefined ? undefined : String(petId)))
    throw new ValidationFailed(
      `query parameter cursor belongs to a list with other filters (status, petId) than this request's; ${FIX}`,
    );
  const after = exactInteger(match[3]!);
  if (BigInt(after) > INT64_MAX)
    throw new ValidationFailed(`query parameter cursor is not a cursor this service issued; ${FIX}`);
  return after;
}

/** The Link header (RFC 8288) of listOrders' next page, an absolute-path reference as listPets'. */
export function nextOrdersLink(path: string, limit: number, filter: OrderFilter, lastId: OrderId): string {
  const status = filter.status === undefined ? '' : `&status=${filter.status}`;
  const petId = filter.petId === undefined ? '' : `&petId=${filter.petId}`;
  return `<${path}?limit=${limit}${status}${petId}&cursor=${encodeOrderCursor(lastId, filter)}>; rel="next"`;
}
