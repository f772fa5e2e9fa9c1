// The change feed: the events migration 5's triggers record in the transaction of each change.
import type pg from 'pg';
import { ServiceUnavailable } from '../../errors/api-errors.js';
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

/**
 * The store's epoch (docs/events.md), from what a restore changes and a row cannot bring back: the
 * cluster's system identifier (a new cluster: pg_dump restored elsewhere), the timeline WAL is written
 * on (point-in-time recovery, a failover), the database's oid (a recreated database) and the pets
 * table's (a schema dropped and restored). The feed row's random epoch is kept in, as before.
 */
export const EPOCH = `substr(md5(concat_ws(':', (SELECT system_identifier FROM pg_control_system()),
    substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8),
    (SELECT oid FROM pg_database WHERE datname = current_database()), 'pets'::regclass::oid, f.epoch)), 1, 8)`;

/**
 * The seq the feed stands at: its newest event, or the purge horizon when that is later (every event
 * purged). Where a list page's position, and a webhook endpoint first seen or set to "now", stand.
 */
export const FEED_END =
  'GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))';

export const FEED_STATEMENTS = {
  epoch: { name: 'read-epoch', text: `SELECT ${EPOCH} AS epoch FROM pet_event_feed f` },
  // A page of the feed and where it starts, read in one snapshot: a purge that commits meanwhile
  // cannot remove events between the check of the cursor and the read.
  listEvents: {
    name: 'list-pet-events',
    text: `SELECT ${EPOCH} AS epoch, f.purged_through, e.seq, e.type, e.pet_id, e.version, e.occurred_at, e.name,
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

export function createEventFeed(statements: Statements, pool: pg.Pool) {
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

    async listEvents(after: number | undefined, limit: number): Promise<EventPage> {
      const { rows } = await statements.run<EventRow>(FEED_STATEMENTS.listEvents, [after ?? 0, limit]);
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
