// pino's default time field (`,"time":<Date.now()>`), as the request line writes it. Unix time in
// milliseconds is too large for a small integer, so turning it into text goes through V8's
// double-to-text conversion, ~700 instructions: here that happens once a second, and each
// millisecond's text is the second's followed by three digits from a table. A service sending a
// request a millisecond or less often (most of them) paid it on every line.

const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => String(ms).padStart(3, '0'));

/** The time field's text for `clock()`, made anew only when the millisecond changes. */
export function unixTimeField(clock: () => number = Date.now): () => string {
  let lastMs = Number.NaN;
  let lastField = '';
  // The start of the current second, as Unix time in ms, and the field up to its seconds.
  let second = Number.NaN;
  let secondField = '';
  return () => {
    const now = clock();
    if (now !== lastMs) {
      lastMs = now;
      // Also when the clock steps back, or forward by more than the rest of the second.
      if (!(now - second >= 0 && now - second < 1000)) {
        second = now - (now % 1000);
        secondField = `,"time":${second / 1000}`;
      }
      lastField = secondField + MILLISECONDS[now - second]!;
    }
    return lastField;
  };
}
