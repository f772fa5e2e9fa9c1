// The change feed: the events migration 5's triggers record in the transaction of each change.
import type { PetId, PetStatus } from '../../types/api.js';
import type { EventPage, PetEventType, StoredEvent } from '../pet-store.js';
import { petOf } from './pet-rows.js';
import { purgeInBatches } from './purge.js';
import type { Statement, Statements } from './statement.js';

/** A row of a feed page: the feed's epoch and horizon, and one event (nulls when the page is empty). */
interface EventRow {
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

export const FEED_STATEMENTS = {
  // A page of the feed and where it starts, read in one snapshot: a purge that commits meanwhile
  // cannot remove events between the check of the cursor and the read.
  listEvents: {
    name: 'list-pet-events',
    text: `SELECT f.epoch, f.purged_through, e.seq, e.type, e.pet_id, e.version, e.occurred_at, e.name,
        e.category_id, e.status
      FROM pet_event_feed f LEFT JOIN LATERAL (
        SELECT * FROM pet_events WHERE seq > GREATEST($1::bigint, f.purged_through) ORDER BY seq LIMIT $2
      ) e ON true`,
  },
  // The oldest events, a batch at a time, up to the first one recorded since the cut-off; the feed
  // remembers the last seq removed, so that a cursor before it is told it is expired.
  purgeEvents: {
    name: 'purge-pet-events',
    text: `WITH oldest AS MATERIALIZED (SELECT seq, occurred_at FROM pet_events ORDER BY seq LIMIT $2::int),
      cut AS (
        SELECT COALESCE(min(seq) FILTER (WHERE occurred_at >= now() - make_interval(secs => $1::double precision)),
          max(seq) + 1) AS stop
        FROM oldest
      ),
      gone AS (DELETE FROM pet_events WHERE seq < (SELECT stop FROM cut) RETURNING seq),
      moved AS (
        UPDATE pet_event_feed SET purged_through = GREATEST(purged_through, (SELECT max(seq) FROM gone))
        WHERE EXISTS (SELECT FROM gone)
      )
      SELECT count(*)::int AS purged FROM gone`,
  },
} as const satisfies Record<string, Statement>;

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

export function createEventFeed(statements: Statements) {
  return {
    async listEvents(after: number | undefined, limit: number): Promise<EventPage> {
      const { rows } = await statements.run<EventRow>(FEED_STATEMENTS.listEvents, [after ?? 0, limit]);
      const [first] = rows;
      /* c8 ignore next -- migration 5 writes the feed's row, and nothing deletes it */
      if (first === undefined) throw new Error('pet_event_feed has no row: the schema is not current');
      const events = first.seq === null ? [] : rows.map(eventOf);
      rows.length = 0;
      return { events, epoch: first.epoch, horizon: first.purged_through };
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
