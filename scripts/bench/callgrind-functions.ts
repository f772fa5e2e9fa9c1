// Instructions by function from a callgrind dump of a Node process run with --perf-basic-prof:
// callgrind names JavaScript's compiled code by address only, and V8's perf map names each address
// range. V8 reuses addresses for new code, so the last range in the map that covers an address
// names it (an earlier one named code that is gone).

/** V8's optimizing compilers at work: one line, since their share depends on the warm-up, not on the request. */
export const COMPILER = "V8's optimizing compilers (TurboFan, Maglev)";

interface Range {
  start: number;
  end: number;
  name: string;
}

/** The ranges of a perf map (`<start hex> <size hex> <name>` per line), in their order. */
export function rangesOf(perfMap: string): Range[] {
  return perfMap
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      const from = Number.parseInt(start!, 16);
      return { start: from, end: from + Number.parseInt(size!, 16), name: name.join(' ') };
    });
}

function nameAt(ranges: Range[], address: number): string | undefined {
  for (let index = ranges.length - 1; index >= 0; index--) {
    const range = ranges[index]!;
    if (address >= range.start && address < range.end) return range.name;
  }
  return undefined;
}

/**
 * Each function's own instructions (not those of what it calls) in a callgrind dump, JIT code named
 * through the perf map; compiler functions summed into COMPILER.
 */
export function selfInstructions(dump: string, perfMap: string): Map<string, number> {
  const ranges = rangesOf(perfMap);
  const names = new Map<string, string>();
  const costs = new Map<string, number>();
  let current = '';
  // The line after `calls=` is the cost of the call, its callee's inclusive cost: not the caller's own.
  let callCost = false;
  for (const line of dump.split('\n')) {
    const definition = /^(c?fn)=\((\d+)\)(?: (.*))?$/.exec(line);
    if (definition !== null) {
      const [, kind, id, name] = definition;
      if (name !== undefined) names.set(id!, name);
      if (kind === 'fn') current = names.get(id!) ?? `(${id})`;
    } else if (line.startsWith('calls=')) callCost = true;
    else if (/^[+-]?\d|^\*/.test(line)) {
      if (callCost) callCost = false;
      else costs.set(current, (costs.get(current) ?? 0) + Number(line.split(' ')[1] ?? 0));
    }
  }
  const named = new Map<string, number>();
  for (const [name, cost] of costs) {
    const address = /^0x([0-9a-f]+)$/.exec(name);
    const jit = address === null ? undefined : nameAt(ranges, Number.parseInt(address[1]!, 16));
    const shown = /v8::internal::compiler::|maglev::/i.test(name) ? COMPILER : (jit ?? name);
    named.set(shown, (named.get(shown) ?? 0) + cost);
  }
  return named;
}
