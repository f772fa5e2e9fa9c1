// listWebhookDeliveries' cursors, opaque as the other lists' (cursor.ts): "d1:<eventId>:<n>", the
// place in the attempt log the page follows and the event it was issued for (empty for none).
import { ValidationFailed } from '../errors/api-errors.js';

const DECODED = /^d1:([0-9a-f]{8}-[0-9]{1,19})?:([1-9][0-9]{0,15})$/;
const FIX = 'send the cursor of a Link rel="next" header unchanged, or leave it out to start from the first page';

export function encodeAttemptCursor(after: number, eventId: string | undefined): string {
  return Buffer.from(`d1:${eventId ?? ''}:${after}`, 'latin1').toString('base64url');
}

/** The attempt the page starts after, or a 400 naming the cursor when it was not issued for this eventId. */
export function attemptPositionOf(cursor: string, eventId: string | undefined): number {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = DECODED.exec(text);
  const after = Number(match?.[2]);
  if (match === null || Buffer.from(text, 'latin1').toString('base64url') !== cursor || !Number.isSafeInteger(after))
    throw new ValidationFailed(`query parameter cursor is not a cursor this service issued; ${FIX}`);
  if (match[1] !== eventId)
    throw new ValidationFailed(
      `query parameter cursor belongs to a list with another eventId than this request's; ${FIX}`,
    );
  return after;
}
