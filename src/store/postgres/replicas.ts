// Reads on PostgreSQL's streaming replicas (DATABASE_READ_URLS, docs/replicas.md). A read goes to
// a replica that is fresh enough, else to the primary: one that is following this primary's history
// (in recovery, with its epoch), at most maxLagMs behind, and, when the read must reflect a
// position (a client's Store-Position, a feed cursor), replayed at least that far. Each instance
// looks at its primary and its replicas every pollMs; each read checks again what its own
// statement saw (still in recovery, far enough), so a replica promoted or behind since the last
// look answers nothing: the read runs on the primary. A replica that fails a read is skipped
// until a look finds it again. Lag is measured in the feed: how long ago the primary first had an
// event the replica has not replayed, to within one poll.
import type pg from 'pg';
import type { ReadAt } from '../read-at.js';
import { createPool } from './pool.js';
import { createStatements, type Statement, type Statements } from './statement.js';
import type { StatementInstrument } from './statement-instrument.js';

export type ReadTarget = 'primary' | 'replica';

/**
 * Why a read did not go to a replica: not far enough for its position, too far behind, not
 * reachable, or not following this primary.
 */
export type SkipReason = 'behind' | 'lagging' | 'unreachable' | 'diverged';

export interface ReadMetrics {
  /** A read statement ran on `target`. */
  read(statement: string, target: ReadTarget): void;
  /** A read went to the primary though replicas are configured. */
  skipped(reason: SkipReason): void;
}

export interface ReplicaOptions {
  /** One pool configuration per replica. */
  pools: readonly pg.PoolConfig[];
  /** DATABASE_READ_MAX_LAG_MS: a replica further behind is skipped. */
  maxLagMs: number;
  /** How often the primary's and each replica's position is read. */
  pollMs?: number;
  metrics?: ReadMetrics | undefined;
}

/** A replica as an instance sees it. */
export interface ReplicaView {
  /** Host and port: never a user or a password. */
  name: string;
  state: 'following' | 'unreachable' | 'diverged';
  /** The newest seq it was seen to have replayed. */
  position: number;
  /** How far behind the primary it is, in ms (Infinity until both were read). */
  lagMs: number;
}

/** A read statement's first row: where it read (sql/functions/store-position.sql). */
export interface PositionedRow extends pg.QueryResultRow {
  position: number;
  standby: boolean;
}

export interface ReadRouter {
  /** Runs a read on a replica fresh enough for `atLeast`, or on the primary; `at.position` is where it read. */
  run<Row extends PositionedRow>(
    statement: Statement,
    values: unknown[],
    at: ReadAt | undefined,
  ): Promise<pg.QueryResult<Row>>;
  replicas(): ReplicaView[];
  close(): Promise<void>;
}

interface Replica {
  name: string;
  pool: pg.Pool;
  statements: Statements;
  state: ReplicaView['state'];
  position: number;
}

interface PositionRow {
  epoch: string;
  position: number;
  standby: boolean;
}

const POLL_MS = 100;
/** The primary's positions kept to measure lag: a minute at one a poll. */
const SAMPLES = 600;

/** `position`: the statement that reads a server's epoch, position and recovery (read-position). */
export function createReadRouter(
  primary: { pool: pg.Pool; statements: Statements },
  position: Statement,
  replicaOptions: ReplicaOptions | undefined,
  { instrument, onPoolError }: { instrument?: StatementInstrument | undefined; onPoolError: (error: Error) => void },
): ReadRouter {
  const metrics = replicaOptions?.metrics;
  const replicas: Replica[] = (replicaOptions?.pools ?? []).map((config) => {
    const pool = createPool(config, onPoolError);
    return {
      name: nameOf(config),
      pool,
      statements: createStatements(pool, instrument),
      state: 'unreachable',
      position: 0,
    };
  });
  const toPrimary = async <Row extends PositionedRow>(statement: Statement, values: unknown[], at?: ReadAt) => {
    metrics?.read(statement.name, 'primary');
    const result = await primary.statements.run<Row>(statement, values);
    if (at !== undefined) at.position = Number(result.rows[0]!.position);
    return result;
  };
  if (replicas.length === 0)
    return {
      run: (statement, values, at) => toPrimary(statement, values, at),
      replicas: () => [],
      close: async () => {},
    };

  const maxLagMs = replicaOptions!.maxLagMs;
  const watch = watchReplicas(primary.pool, replicas, position, replicaOptions!.pollMs ?? POLL_MS);
  const { lagOf } = watch;

  let next = 0;
  /** A replica fresh enough for `atLeast`, taken in turn; else why none is. */
  const choose = (atLeast: number | undefined): Replica | SkipReason => {
    const now = Date.now();
    let reason: SkipReason = 'unreachable';
    for (let tried = 0; tried < replicas.length; tried++) {
      const replica = replicas[(next + tried) % replicas.length]!;
      if (replica.state !== 'following') reason = replica.state;
      else if (lagOf(replica, now) > maxLagMs) reason = 'lagging';
      else if (atLeast !== undefined && replica.position < atLeast) reason = 'behind';
      else {
        next = (next + tried + 1) % replicas.length;
        return replica;
      }
    }
    return reason;
  };

  return {
    async run<Row extends PositionedRow>(statement: Statement, values: unknown[], at: ReadAt | undefined) {
      const atLeast = at?.atLeast;
      const chosen = choose(atLeast);
      if (typeof chosen === 'string') {
        metrics?.skipped(chosen);
        return toPrimary<Row>(statement, values, at);
      }
      let result: pg.QueryResult<Row>;
      try {
        result = await chosen.statements.run<Row>(statement, values);
      } catch {
        chosen.state = 'unreachable';
        metrics?.skipped('unreachable');
        return toPrimary<Row>(statement, values, at);
      }
      const row = result.rows[0]!;
      const read = Number(row.position);
      // Promoted since the last look: its history may have left the primary's.
      if (!row.standby) {
        chosen.state = 'diverged';
        metrics?.skipped('diverged');
        return toPrimary<Row>(statement, values, at);
      }
      chosen.position = Math.max(chosen.position, read);
      /* c8 ignore next 4 -- a replay does not go back; this guards a replica rebuilt from an older backup */
      if (atLeast !== undefined && read < atLeast) {
        metrics?.skipped('behind');
        return toPrimary<Row>(statement, values, at);
      }
      metrics?.read(statement.name, 'replica');
      if (at !== undefined) at.position = read;
      return result;
    },

    replicas: () => {
      const now = Date.now();
      return replicas.map((replica) => ({
        name: replica.name,
        state: replica.state,
        position: replica.position,
        lagMs: lagOf(replica, now),
      }));
    },

    async close() {
      await watch.close();
      await Promise.all(replicas.map((replica) => replica.pool.end()));
    },
  };
}

/**
 * Reads the primary's and each replica's epoch and position every `pollMs`: a replica follows when
 * it is in recovery with the primary's epoch. Lag is measured in the feed: the primary's positions
 * are kept with when each was first seen.
 */
function watchReplicas(primary: pg.Pool, replicas: readonly Replica[], position: Statement, pollMs: number) {
  // When the primary was first seen at each position, oldest first.
  const samples: { at: number; position: number }[] = [];
  let primaryEpoch: string | undefined;
  const look = async () => {
    const read = (pool: pg.Pool) => pool.query<PositionRow>(position.text).then(({ rows }) => rows[0]!);
    const [onPrimary, ...onReplicas] = (await Promise.allSettled(
      [primary, ...replicas.map((replica) => replica.pool)].map(read),
    )) as [PromiseSettledResult<PositionRow>, ...PromiseSettledResult<PositionRow>[]];
    const now = Date.now();
    if (onPrimary.status === 'fulfilled') {
      primaryEpoch = onPrimary.value.epoch;
      const seen = Number(onPrimary.value.position);
      if (samples.length === 0 || seen > samples.at(-1)!.position) samples.push({ at: now, position: seen });
      samples.splice(0, samples.length - SAMPLES);
    }
    onReplicas.forEach((outcome, index) => {
      const replica = replicas[index]!;
      if (outcome.status === 'rejected') {
        replica.state = 'unreachable';
        return;
      }
      const { epoch, standby } = outcome.value;
      replica.position = Number(outcome.value.position);
      replica.state = standby && epoch === primaryEpoch ? 'following' : 'diverged';
    });
  };
  let looking: Promise<void> | undefined;
  const tick = () => {
    looking ??= look().finally(() => (looking = undefined));
  };
  tick();
  const timer = setInterval(tick, pollMs).unref();
  return {
    /** How long ago the primary first had a position the replica has not reached (Infinity before the first look). */
    lagOf(replica: Replica, now: number): number {
      if (samples.length === 0) return Infinity;
      const ahead = samples.find((sample) => sample.position > replica.position);
      return ahead === undefined ? 0 : now - ahead.at;
    },
    async close() {
      clearInterval(timer);
      await looking;
    },
  };
}

/** Host and port of a replica's connection string: never its user or password. */
export function nameOf(config: pg.PoolConfig): string {
  const url = new URL(config.connectionString!);
  return `${url.hostname}:${url.port === '' ? '5432' : url.port}`;
}
