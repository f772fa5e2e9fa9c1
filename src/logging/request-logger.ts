// The loggers requests get as request.log. Fastify gives every request a child of its logger,
// bound to the request id, as soon as a logger exists, whether or not anything logs through it: a
// pino child cost ~6,000 instructions per request, and a childLoggerFactory of our own ~3,000 in
// Fastify's check of what it returns (docs/performance.md). Here the logger Fastify is given makes
// its children lazily, and so do they: a pino child is made on the first line logged through it,
// which few requests do (the request line itself is written by src/logging/request-log.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

type LogArguments = Parameters<FastifyBaseLogger['info']>;
type MakeChild = FastifyBaseLogger['child'];

/** The logger for Fastify: `logger` itself, but for its children, which are lazy. */
export function withLazyChildren(logger: FastifyBaseLogger): FastifyBaseLogger {
  const makeChild: MakeChild = logger.child;
  const lazy = Object.create(logger) as FastifyBaseLogger;
  // A method, not a closure over `lazy`: pino children inherit it, and their children must be theirs.
  lazy.child = function (this: FastifyBaseLogger, bindings, options) {
    return new RequestLogger(this, makeChild, bindings, options ?? {});
  } as MakeChild;
  return lazy;
}

export class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined = undefined;

  constructor(
    readonly parent: FastifyBaseLogger,
    private readonly makeChild: MakeChild,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child this stands for, made on first use. */
  get logger(): FastifyBaseLogger {
    return (this.made ??= this.makeChild.call(this.parent, this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    const logger = this.made ?? (this.options.level === undefined ? this.parent : this.logger);
    return (logger as Partial<Logger>).isLevelEnabled?.(level) ?? false;
  }

  fatal(...args: LogArguments): void {
    this.logger.fatal(...args);
  }

  error(...args: LogArguments): void {
    this.logger.error(...args);
  }

  warn(...args: LogArguments): void {
    this.logger.warn(...args);
  }

  info(...args: LogArguments): void {
    this.logger.info(...args);
  }

  debug(...args: LogArguments): void {
    this.logger.debug(...args);
  }

  trace(...args: LogArguments): void {
    this.logger.trace(...args);
  }

  silent(...args: LogArguments): void {
    this.logger.silent(...args);
  }

  // Fastify derives its own logger from the one it is given (adding its serializers), and the
  // request loggers from that one: children of a lazy logger are lazy too.
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return new RequestLogger(this, childOfMade, bindings, options ?? {});
  }
}

const childOfMade = function (this: RequestLogger, bindings: Bindings, options?: ChildLoggerOptions) {
  return this.logger.child(bindings, options);
} as MakeChild;
