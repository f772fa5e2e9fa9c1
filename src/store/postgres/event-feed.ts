// The change feed: the events the triggers of sql/functions/pet-events.sql record in the
// transaction of each change.
import type pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
import type { PetId, PetStatus } from '../../types/api.js';
import type { EventPage, PetEventType, StoredEvent } from '../pet-store.js';
import type { ReadAt } from '../read-at.js';
import { petOf } from './pet-rows.js';
import { purgeInBatches } from './purge.js';
import type { PositionedRow, ReadRouter } from './replicas.js';
import { statementsOf } from './sql-files.js';
import type { Statements } from './statement.js';

/** A row of a feed page: the feed's epoch and horizon, and one event (nulls when the page is empty). */
interface EventRow extends PositionedRow {
  epoch: string;
  purged_through: number;
  seq: number | null;
  type: PetEventType;
  pet_id: PetId;
  version: number;
  occurred_at: Date;
  name: string | null;
  category_id: PetId;
  status: PetStatus | null;
}

export const FEED_STATEMENTS = statementsOf('event-feed', {
  epoch: 'read-epoch',
  // Where a server stands (replicas.ts).
  position: 'read-position',
  // A page of the feed and where it starts, read in one snapshot: a purge that commits meanwhile
  // cannot remove events between the check of the cursor and the read.
  listEvents: 'list-pet-events',
  // The oldest events, a batch at a time, up to the first one recorded since the cut-off; the feed
  // remembers the last seq removed, so that a cursor before it is told it is expired.
  purgeEvents: 'purge-pet-events',
});

const eventOf = (row: EventRow): StoredEvent => {
  const event: StoredEvent = {
    seq: row.seq!,
    type: row.type,
    petId: row.pet_id,
    version: row.version,
    occurredAt: row.occurred_at.getTime(),
  };
  if (row.name !== null) {
    event.pet = petOf({ id: row.pet_id, name: row.name, category_id: row.category_id, status: row.status });
  }
  return event;
};

export function createEventFeed(statements: Statements, reads: ReadRouter, pool: pg.Pool) {
  let epoch: string | undefined;
  return {
    /** The epoch as last read (by readEpoch, or with a page of the feed). */
    epoch(): string {
      /* c8 ignore next -- the service reads it before it serves (start.ts) */
      if (epoch === undefined) throw new ServiceUnavailable();
      return epoch;
    },

    /**
     * Reads the epoch now: once the schema is current, then every second (start.ts). Housekeeping,
     * like the heartbeat, so sent on the pool unmeasured: a span and a count a second per instance
     * would bury the statements of the requests.
     */
    async readEpoch(): Promise<string> {
      const { rows } = await pool.query<{ epoch: string }>(FEED_STATEMENTS.epoch);
      return (epoch = rows[0]!.epoch);
    },

    // A page is read at the cursor at least: a replica behind it has nothing to add yet, so the
    // primary answers rather than an empty page.
    async listEvents(after: number | undefined, limit: number, at: ReadAt = {}): Promise<EventPage> {
      if (after !== undefined) at.atLeast = Math.max(after, at.atLeast ?? 0);
      const { rows } = await reads.run<EventRow>(FEED_STATEMENTS.listEvents, [after ?? 0, limit], at);
      const [first] = rows;
      /* c8 ignore next -- migration 5 writes the feed's row, and nothing deletes it */
      if (first === undefined) throw new Error('pet_event_feed has no row: the schema is not current');
      const events = first.seq === null ? [] : rows.map(eventOf);
      rows.length = 0;
      epoch = first.epoch;
      return { events, epoch, horizon: first.purged_through };
    },

    purgeEvents: (olderThanMs: number) =>
      purgeInBatches(async (batch) => {
        const { rows } = await statements.run<{ purged: number }>(FEED_STATEMENTS.purgeEvents, [
          olderThanMs / 1000,
          batch,
        ]);
        return rows[0]!.purged;
      }),
  };
}
