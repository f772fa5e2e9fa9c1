// The one reader of an operation's lifecycle markers: x-stability, and on a deprecated operation
// x-deprecated-at, x-sunset, x-replaced-by and x-brownouts. It parses and checks them once into a
// typed record that the routes (headers, the sunset and brownouts), the client generator, the
// contract runner, compat and the spec lint (scripts/lint-lifecycle.ts) all read.
import { operationsOf, pathParametersOf, type OpenApiDocument, type Operation } from './openapi-spec.js';

/** From the least promise to the most; a release's promise may only grow in later versions. */
export const STABILITIES = ['experimental', 'beta', 'stable'] as const;
export type Stability = (typeof STABILITIES)[number];

/**
 * What clients get at the least to move off a deprecated operation, by its x-stability: six months
 * for a stable one, thirty days for a beta one, none promised for an experimental one. A policy of
 * ours, which the lint holds a spec to; the service itself runs whatever sunset it is given.
 */
export const MIN_NOTICE_DAYS: Readonly<Record<Stability, number>> = { stable: 180, beta: 30, experimental: 0 };

export const LIFECYCLE_MARKERS = ['x-deprecated-at', 'x-sunset', 'x-replaced-by', 'x-brownouts'] as const;

/** A scheduled window in which a deprecated operation responds with 410, [start, end) as Unix time in ms. */
export interface Brownout {
  start: number;
  end: number;
  /** `end` as the spec writes it. */
  endText: string;
}

/** A date the spec writes as YYYY-MM-DD, and 00:00 UTC on it as Unix time in ms. */
export interface Day {
  text: string;
  at: number;
}

export interface Lifecycle {
  operationId: string;
  /** The promise to the operation's clients (stable when the spec says nothing). */
  stability: Stability;
  /** Present on a deprecated operation: when it was, and what its clients were told. */
  deprecation?: {
    at: Day;
    /** From 00:00 UTC on this day the operation responds with 410. */
    sunset?: Day;
    /** The operation to use instead: a path without parameters. */
    replacedBy?: Operation;
    /** In start order, none overlapping, between the deprecation and the sunset. */
    brownouts: Brownout[];
  };
}

/** One way the markers are wrong, at a marker of the operation. */
export interface LifecycleProblem {
  /** The marker the problem is at (`deprecated` when one is missing). */
  field: string;
  message: string;
  /** `policy`: a rule of ours that the lint holds the spec to, not one the service needs to run. */
  kind: 'invalid' | 'policy';
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const DAY_MS = 86_400_000;

/**
 * The record of `operation` and every problem of its markers (the record is whole only when there is none of kind
 * `invalid`).
 */
export function readLifecycle(
  operation: Operation,
  operations: readonly Operation[],
): { lifecycle: Lifecycle; problems: LifecycleProblem[] } {
  const marked = operation.object as unknown as Record<string, unknown>;
  const problems: LifecycleProblem[] = [];
  const problem = (field: string, message: string, kind: LifecycleProblem['kind'] = 'invalid') =>
    void problems.push({ field, message, kind });

  const marker = marked['x-stability'] ?? 'stable';
  const known = (STABILITIES as readonly unknown[]).includes(marker);
  if (!known)
    problem('x-stability', `x-stability must be one of ${STABILITIES.join(', ')}, not ${JSON.stringify(marker)}`);
  const stability = known ? (marker as Stability) : 'stable';
  const lifecycle: Lifecycle = { operationId: operation.operationId, stability };

  if (marked['deprecated'] !== true) {
    for (const name of LIFECYCLE_MARKERS)
      if (marked[name] !== undefined) problem(name, `${name} needs deprecated: true`);
    return { lifecycle, problems };
  }

  const dayOf = (field: string): Day | undefined => {
    const value = marked[field];
    if (typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value)))
      return { text: value, at: Date.parse(`${value}T00:00:00Z`) };
    problem(field, `${field} must be a date, YYYY-MM-DD`);
    return undefined;
  };
  const at =
    marked['x-deprecated-at'] === undefined
      ? problem('deprecated', 'a deprecated operation needs x-deprecated-at (YYYY-MM-DD)')
      : dayOf('x-deprecated-at');
  const sunset = marked['x-sunset'] === undefined ? undefined : dayOf('x-sunset');
  const notice = MIN_NOTICE_DAYS[stability];
  if (at !== undefined && sunset !== undefined && sunset.at - at.at < notice * DAY_MS) {
    problem(
      'x-sunset',
      `x-sunset must come at least ${notice} days after x-deprecated-at${stability === 'stable' ? '' : ` (x-stability ${stability})`}`,
      'policy',
    );
  }

  let replacedBy: Operation | undefined;
  if (marked['x-replaced-by'] !== undefined) {
    replacedBy = operations.find((candidate) => candidate.operationId === marked['x-replaced-by']);
    if (replacedBy === undefined || pathParametersOf(replacedBy.path).length > 0) {
      problem('x-replaced-by', 'x-replaced-by must name an operation whose path has no parameters');
      replacedBy = undefined;
    }
  }

  const brownouts = brownoutsOf(
    marked['x-brownouts'],
    at?.at ?? Number.NEGATIVE_INFINITY,
    sunset?.at ?? Number.POSITIVE_INFINITY,
    (message) => problem('x-brownouts', message),
  );
  if (at !== undefined) {
    lifecycle.deprecation = {
      at,
      brownouts,
      ...(sunset === undefined ? {} : { sunset }),
      ...(replacedBy === undefined ? {} : { replacedBy }),
    };
  }
  return { lifecycle, problems };
}

/** The record of `operation`; markers the service cannot run with stop it, naming the first problem. */
export function lifecycleOf(
  operation: Operation,
  operations: readonly Operation[],
  documentName = 'openapi.yaml',
): Lifecycle {
  const { lifecycle, problems } = readLifecycle(operation, operations);
  const invalid = problems.find((found) => found.kind === 'invalid');
  if (invalid !== undefined) throw new Error(`${documentName}: operation ${operation.operationId}: ${invalid.message}`);
  return lifecycle;
}

/** Every operation's record, by operationId. */
export function lifecyclesOf(spec: OpenApiDocument, documentName = 'openapi.yaml'): Map<string, Lifecycle> {
  const operations = operationsOf(spec);
  return new Map(
    operations.map((operation) => [operation.operationId, lifecycleOf(operation, operations, documentName)]),
  );
}

/** Whether `now` promises less than `before` did: stable made beta, beta made experimental. */
export function isLowered(before: Stability, now: Stability): boolean {
  return STABILITIES.indexOf(now) < STABILITIES.indexOf(before);
}

/**
 * x-brownouts, checked: UTC windows that start before they end, overlap none, and fall between the deprecation and the
 * sunset; sorted.
 */
function brownoutsOf(
  value: unknown,
  deprecatedAt: number,
  sunsetAt: number,
  problem: (message: string) => void,
): Brownout[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problem('x-brownouts must be a list of {start, end}');
    return [];
  }
  const windows: (Brownout & { name: string })[] = [];
  value.forEach((window: unknown, index) => {
    const name = `x-brownouts[${index}]`;
    const [start, end] = (['start', 'end'] as const).map((field) => {
      const text = (window as Record<string, unknown> | null)?.[field];
      if (typeof text === 'string' && DATE_TIME_UTC.test(text) && !Number.isNaN(Date.parse(text)))
        return Date.parse(text);
      problem(`${name}.${field} must be an RFC 3339 date-time in UTC, such as 2030-06-01T14:00:00Z`);
      return undefined;
    });
    if (start === undefined || end === undefined) return;
    if (start >= end) problem(`${name} must start before it ends`);
    else if (start < deprecatedAt) problem(`${name} starts before x-deprecated-at`);
    else if (end > sunsetAt) problem(`${name} ends after x-sunset`);
    else windows.push({ start, end, endText: (window as { end: string }).end, name });
  });
  windows.sort((a, b) => a.start - b.start);
  for (let index = 1; index < windows.length; index++) {
    if (windows[index]!.start < windows[index - 1]!.end)
      problem(`${windows[index - 1]!.name} and ${windows[index]!.name} overlap`);
  }
  return windows.map(({ start, end, endText }) => ({ start, end, endText }));
}
