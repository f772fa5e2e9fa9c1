// Spectral function (.spectral.yaml, rule petstore-deprecation-markers): an operation's lifecycle
// markers are complete and in order, so that `npm run lint:spec` refuses what would stop the
// service at start-up (src/routes/deprecation-headers.ts checks the same there), and one policy of
// ours besides: a sunset comes at least MIN_NOTICE_DAYS (by x-stability) after the deprecation.
// Plain JavaScript: Spectral loads it as it is.
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MARKERS = ['x-deprecated-at', 'x-sunset', 'x-replaced-by', 'x-brownouts'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// What clients get at the least to move off a deprecated operation, by its x-stability: six
// months for a stable one, thirty days for a beta one, none promised for an experimental one.
export const MIN_NOTICE_DAYS = { stable: 180, beta: 30, experimental: 0 };
const DAY_MS = 86_400_000;

export default (operation, _options, { document, path }) => {
  const problems = [];
  const problem = (field, message) => problems.push({ message, path: [...path, field] });
  if (operation === null || typeof operation !== 'object') return problems;
  if (operation.deprecated !== true) {
    for (const marker of MARKERS) if (operation[marker] !== undefined) problem(marker, `${marker} needs deprecated: true`);
    return problems;
  }
  const dateOf = (field) => {
    const value = operation[field];
    if (typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value))) return Date.parse(`${value}T00:00:00Z`);
    problem(field, `${field} must be a date, YYYY-MM-DD`);
    return undefined;
  };
  const deprecatedAt = operation['x-deprecated-at'] === undefined ? problem('deprecated', 'a deprecated operation needs x-deprecated-at (YYYY-MM-DD)') : dateOf('x-deprecated-at');
  const sunsetAt = operation['x-sunset'] === undefined ? undefined : dateOf('x-sunset');
  const stability = operation['x-stability'] ?? 'stable';
  const notice = MIN_NOTICE_DAYS[stability] ?? MIN_NOTICE_DAYS.stable;
  if (deprecatedAt !== undefined && sunsetAt !== undefined && sunsetAt - deprecatedAt < notice * DAY_MS) {
    problem('x-sunset', `x-sunset must come at least ${notice} days after x-deprecated-at${stability === 'stable' ? '' : ` (x-stability ${stability})`}`);
  }

  const replacedBy = operation['x-replaced-by'];
  if (replacedBy !== undefined) {
    const successors = Object.entries(document.data?.paths ?? {}).flatMap(([route, item]) =>
      METHODS.filter((method) => item?.[method]?.operationId === replacedBy).map(() => route),
    );
    if (successors.length !== 1 || successors[0].includes('{')) problem('x-replaced-by', 'x-replaced-by must name an operation whose path has no parameters');
  }

  const brownouts = operation['x-brownouts'];
  if (brownouts === undefined) return problems;
  if (!Array.isArray(brownouts)) {
    problem('x-brownouts', 'x-brownouts must be a list of {start, end}');
    return problems;
  }
  const windows = [];
  brownouts.forEach((window, index) => {
    const name = `x-brownouts[${index}]`;
    const instants = ['start', 'end'].map((field) => {
      const value = window?.[field];
      if (typeof value === 'string' && DATE_TIME_UTC.test(value) && !Number.isNaN(Date.parse(value))) return Date.parse(value);
      problem('x-brownouts', `${name}.${field} must be an RFC 3339 date-time in UTC, such as 2030-06-01T14:00:00Z`);
      return undefined;
    });
    const [start, end] = instants;
    if (start === undefined || end === undefined) return;
    if (start >= end) problem('x-brownouts', `${name} must start before it ends`);
    else if (deprecatedAt !== undefined && start < deprecatedAt) problem('x-brownouts', `${name} starts before x-deprecated-at`);
    else if (sunsetAt !== undefined && end > sunsetAt) problem('x-brownouts', `${name} ends after x-sunset`);
    else windows.push({ start, end, name });
  });
  windows.sort((a, b) => a.start - b.start);
  for (let index = 1; index < windows.length; index++) {
    if (windows[index].start < windows[index - 1].end) problem('x-brownouts', `${windows[index - 1].name} and ${windows[index].name} overlap`);
  }
  return problems;
};
