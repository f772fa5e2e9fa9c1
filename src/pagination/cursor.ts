// The page cursors of listPets and listOrders: opaque to clients (base64url), so that what they
// hold can change without breaking anyone who follows links. Today a cursor holds the last id of
// the page it follows and the filters it was issued for, "v1:<status>[.<petId>][~<placedBy>]:<id>"
// (listPets has only a status): a cursor sent with other filters would silently read a different sequence,
// so it is refused instead.
import { ValidationFailed } from '../errors/api-errors.js';
import type { OrderStatus, PetId, PetStatus } from '../types/api.js';
import { INT64_MAX, exactInteger } from '../validation/int64.js';

const VERSION = 'v1';
// VERSION:status.petId:id, with an empty status for a list not filtered by it, and no petId for
// one not filtered by pet; ids are positive, without leading zeros.
const DECODED = new RegExp(`^${VERSION}:([a-z]*)(?:\\.(-?[0-9]{1,19}))?(?:~([a-z0-9_-]{1,32}))?:([1-9][0-9]{0,18})$`);
const FIX = 'send the cursor of a Link rel="next" header unchanged, or leave it out to start from the first page';

export interface CursorPosition {
  /** The page starts after the pet (or order) with this id. */
  after: PetId;
  status: PetStatus | OrderStatus | undefined;
  /** listOrders' pet filter. */
  petId?: PetId | undefined;
  /** listOrders' client filter. */
  placedBy?: string | undefined;
}

export function encodeCursor({ after, status, petId, placedBy }: CursorPosition): string {
  const pet = petId === undefined ? '' : `.${petId}`;
  const client = placedBy === undefined ? '' : `~${placedBy}`;
  return Buffer.from(`${VERSION}:${status ?? ''}${pet}${client}:${after}`, 'latin1').toString('base64url');
}

const notIssued = () => new ValidationFailed(`query parameter cursor is not a cursor this service issued; ${FIX}`);

/** listPets' page: the id it starts after, or a 400 naming the cursor when it was not issued for this filter. */
export function positionOf(cursor: string, status: PetStatus | undefined): PetId {
  const decoded = decode(cursor);
  // A cursor filtered by pet or client is listOrders': never one of listPets'.
  if (decoded === undefined || decoded.petId !== undefined || decoded.placedBy !== undefined) throw notIssued();
  if (decoded.status !== (status ?? '')) {
    const belongsTo =
      decoded.status === '' ? 'a list without a status filter' : `the list with status=${decoded.status}`;
    throw new ValidationFailed(`query parameter cursor belongs to ${belongsTo}, not to this request; ${FIX}`);
  }
  return decoded.after;
}

/** listOrders' page: the id it starts after, or a 400 naming the cursor when it was not issued for these filters. */
export function orderPositionOf(
  cursor: string,
  {
    status,
    petId,
    placedBy,
  }: { status: OrderStatus | undefined; petId: PetId | undefined; placedBy: string | undefined },
): PetId {
  const decoded = decode(cursor);
  if (decoded === undefined) throw notIssued();
  if (
    decoded.status !== (status ?? '') ||
    decoded.petId !== (petId === undefined ? undefined : String(petId)) ||
    decoded.placedBy !== placedBy
  )
    throw new ValidationFailed(
      `query parameter cursor belongs to a list with other filters (status, petId, placedBy) than this request's; ${FIX}`,
    );
  return decoded.after;
}

function decode(
  cursor: string,
): { status: string; petId: string | undefined; placedBy: string | undefined; after: PetId } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = DECODED.exec(text);
  // Base64url decoding skips what it cannot read; only the canonical encoding of a valid text is a cursor.
  if (match === null || Buffer.from(text, 'latin1').toString('base64url') !== cursor) return undefined;
  const after = exactInteger(match[4]!);
  if (BigInt(after) > INT64_MAX) return undefined;
  return { status: match[1]!, petId: match[2], placedBy: match[3], after };
}
