// Reading your own writes (openapi.yaml, "Reading your own writes"): the client keeps the highest
// Store-Position any answer carried and sends it with every call whose operation takes one, so a
// read never shows an older state than one this client has seen, on whichever instance or replica
// serves it. Positions of one store compare by the number after the `-`; one of another store (a
// restore, a failover: another epoch before the `-`) replaces the one kept, since the service
// answers in the store it has now.

const FORM = /^([0-9a-f]{8})-(0|[1-9][0-9]{0,18})$/;

/** The later of two positions: `seen` unless both are of one store and `kept` is further. */
export function laterPosition(kept: string | undefined, seen: string): string {
  const next = FORM.exec(seen);
  if (next === null) return kept ?? seen;
  const current = kept === undefined ? null : FORM.exec(kept);
  if (current === null || current[1] !== next[1]) return seen;
  return BigInt(current[2]!) >= BigInt(next[2]!) ? kept! : seen;
}

/** The highest position one client has seen. */
export class PositionKeeper {
  #highest: string | undefined;

  /** What to send: the highest position seen, if any. */
  get highest(): string | undefined {
    return this.#highest;
  }

  /** Notes the position an answer carried, if it carried one. */
  saw(headers: Headers): void {
    const seen = headers.get('store-position');
    if (seen !== null) this.#highest = laterPosition(this.#highest, seen);
  }
}
