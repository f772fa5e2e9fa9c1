// The targets of an HTTP Link header (RFC 8288) with a given relation type, in order.

const LINK = /<([^>]*)>((?:\s*;\s*[^;,=\s]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
const PARAMETER = /;\s*([^;,=\s]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*))?/g;

export function linkTargets(header: string | null, relation: string): string[] {
  if (header === null) return [];
  const targets: string[] = [];
  for (const [, target, parameters] of header.matchAll(LINK)) {
    for (const [, name, raw] of parameters!.matchAll(PARAMETER)) {
      if (name!.toLowerCase() !== 'rel' || raw === undefined) continue;
      const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
      // rel may hold several relation types, separated by spaces; they compare case-insensitively.
      if (value.toLowerCase().split(/\s+/).includes(relation.toLowerCase())) targets.push(target!);
    }
  }
  return targets;
}
