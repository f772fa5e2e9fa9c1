// What observes the PostgreSQL store's statements (metrics, tracing) without the store knowing which:
// each wraps the run of one statement, named for what it does. Without any, nothing wraps the run.
export type StatementInstrument = <T>(statement: string, run: () => Promise<T>) => Promise<T>;

/** One instrument that runs each of `instruments` around the statement, the first outermost. */
export function composeInstruments(
  instruments: readonly (StatementInstrument | undefined)[],
): StatementInstrument | undefined {
  const present = instruments.filter((instrument): instrument is StatementInstrument => instrument !== undefined);
  if (present.length <= 1) return present[0];
  return (statement, run) =>
    present.reduceRight<typeof run>((inner, instrument) => () => instrument(statement, inner), run)();
}
