// Objects a client owns, as a document marks them: a schema with `x-owner` (`{property, seenByAllWith}`)
// holds objects that belong to the client whose key made them. Another client's key reads and moves
// such an object as one that never existed (the operation's documented 404), and lists leave it out,
// unless the key has the `seenByAllWith` role. The engine reads only the marker's presence: which
// responses carry owned objects, one at a time or as a list.
import { resolveRef, type OpenApiDocument, type Operation } from './openapi-document.js';

type SchemaNode = { $ref?: string; type?: string; items?: SchemaNode } | undefined;

/** The names of the schemas the document marks owned. */
export function ownedSchemaNames(document: OpenApiDocument): Set<string> {
  const schemas = ((document.components ?? {}) as { schemas?: Record<string, Record<string, unknown>> }).schemas ?? {};
  return new Set(Object.keys(schemas).filter((name) => schemas[name]!['x-owner'] !== undefined));
}

/** The owned schema a JSON response's body holds: the object itself, or a list of them. */
export function ownedSchemasOf(document: OpenApiDocument) {
  const names = ownedSchemaNames(document);
  const nameOf = (node: SchemaNode) =>
    node?.$ref?.startsWith('#/components/schemas/') ? node.$ref.slice('#/components/schemas/'.length) : undefined;
  /** The owned schema of `operation`'s `status` response, its list's items included; undefined for none. */
  const bodyOf = (operation: Operation, status: string, list: boolean): string | undefined => {
    if (names.size === 0) return undefined;
    const response = operation.object.responses[status];
    if (response === undefined) return undefined;
    const content = (resolveRef(document, response) as { content?: Record<string, { schema?: SchemaNode }> }).content;
    let schema = content?.['application/json']?.schema;
    // Follow refs to what is no owned schema itself (`Orders`: a list), keeping an owned one's name.
    while (schema !== undefined && nameOf(schema) !== undefined && !names.has(nameOf(schema)!))
      schema = resolveRef(document, schema);
    if (list) {
      if (schema?.type !== 'array') return undefined;
      schema = schema.items;
    }
    const name = nameOf(schema);
    return name !== undefined && names.has(name) ? name : undefined;
  };
  return {
    /** The owned schema of a response: its body, or its body's items. */
    of: (operation: Operation, status: string) => bodyOf(operation, status, false) ?? bodyOf(operation, status, true),
    /** The owned schema a list operation's 200 lists, if any. */
    listOf: (operation: Operation) => bodyOf(operation, '200', true),
  };
}
