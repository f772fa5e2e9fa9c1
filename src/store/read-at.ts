// Where a read is made in the store's history (docs/replicas.md): what both stores' reads take.
/**
 * A read's place in the store's history (docs/replicas.md): what it must reflect at least (the
 * highest position its client has seen, from Store-Position), and, set by the store as it reads,
 * the position it did read at. A position is a seq of the feed: a state that reflects it holds
 * every change up to that event. A PostgreSQL store serves a read from a replica only when the
 * replica has replayed that far; in memory every read is at the newest position.
 */
export interface ReadAt {
  /** Undefined: any state a replica at most DATABASE_READ_MAX_LAG_MS behind holds. */
  atLeast?: number | undefined;
  /** Where the read was made, once it has returned. */
  position?: number;
}
