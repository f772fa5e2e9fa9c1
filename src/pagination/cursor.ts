// listPets' page cursors: opaque to clients (base64url), so that what they hold can change without
// breaking anyone who follows links. Today a cursor holds the last id of the page it follows and
// the status filter it was issued for: a cursor sent with another filter would silently read a
// different sequence, so it is refused instead.
import { ValidationFailed } from '../errors/api-errors.js';
import type { PetId, PetStatus } from '../types/api.js';
import { INT64_MAX, exactInteger } from '../validation/int64.js';

const VERSION = 'v1';
// VERSION:status:id, with an empty status for an unfiltered list; ids are positive, without leading zeros.
const DECODED = new RegExp(`^${VERSION}:([a-z]*):([1-9][0-9]{0,18})$`);
const FIX = 'send the cursor of a Link rel="next" header unchanged, or leave it out to start from the first page';

export interface CursorPosition {
  /** The page starts after the pet with this id. */
  after: PetId;
  status: PetStatus | undefined;
}

export function encodeCursor({ after, status }: CursorPosition): string {
  return Buffer.from(`${VERSION}:${status ?? ''}:${after}`, 'latin1').toString('base64url');
}

/** The id a page starts after, or a 400 naming the cursor when it was not issued by encodeCursor for this filter. */
export function positionOf(cursor: string, status: PetStatus | undefined): PetId {
  const decoded = decode(cursor);
  if (decoded === undefined)
    throw new ValidationFailed(`query parameter cursor is not a cursor this service issued; ${FIX}`);
  if (decoded.status !== (status ?? '')) {
    const belongsTo =
      decoded.status === '' ? 'a list without a status filter' : `the list with status=${decoded.status}`;
    throw new ValidationFailed(`query parameter cursor belongs to ${belongsTo}, not to this request; ${FIX}`);
  }
  return decoded.after;
}

function decode(cursor: string): { status: string; after: PetId } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = DECODED.exec(text);
  // Base64url decoding skips what it cannot read; only the canonical encoding of a valid text is a cursor.
  if (match === null || Buffer.from(text, 'latin1').toString('base64url') !== cursor) return undefined;
  const after = exactInteger(match[2]!);
  if (BigInt(after) > INT64_MAX) return undefined;
  return { status: match[1]!, after };
}
