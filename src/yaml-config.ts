// The YAML of a configuration file (API_KEYS_FILE, WEBHOOKS_FILE), read as nodes so that a message
// names the line of what is wrong. Aliases (`roles: *customer`) are read as YAML defines them, each a
// copy of the node its anchor names, at most MAX_ALIASES in a file: a few aliases that each name
// lists of aliases would otherwise grow without bound. A parse error names only its place: the text
// around it may be a key or a secret.
import { LineCounter, parseDocument, visit, type Node } from 'yaml';

export const MAX_ALIASES = 100;

export interface ConfigYaml {
  root: Node | null;
  /** Throws the file's error for `node`: where it is, then the reason. */
  fail(node: Node | null | undefined, reason: string): never;
}

/** `name` is how messages call the file; `toError` makes the file's own error class. */
export function configYaml(text: string, name: string, toError: (message: string) => Error): ConfigYaml {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (node: Node | null | undefined) =>
    node?.range == null ? name : `${name} line ${lines.linePos(node.range[0]).line}`;
  const fail = (node: Node | null | undefined, reason: string): never => {
    throw toError(`${at(node)}: ${reason}`);
  };
  const [parseError] = document.errors;
  if (parseError !== undefined)
    throw toError(`${name} line ${lines.linePos(parseError.pos[0]).line}: not valid YAML (${parseError.code})`);
  let aliases = 0;
  visit(document, {
    Alias(_key, alias) {
      if (++aliases > MAX_ALIASES) fail(alias, `more than ${MAX_ALIASES} aliases in one file`);
      const named = alias.resolve(document);
      return named === undefined ? fail(alias, `the alias *${alias.source} names no anchor`) : (named.clone() as Node);
    },
  });
  return { root: document.contents, fail };
}
