// generated/openapi.d.ts: the types of openapi.yaml, for the handlers and tests.
import openapiTS, { astToString, COMMENT_HEADER, NUMBER, tsUnion } from 'openapi-typescript';
import ts from 'typescript';
import type { GeneratedFile } from './generated-file.js';

// int64 values beyond 2^53 reach the handlers as bigint (see src/validation/json-body-parser.ts).
const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);

export async function apiTypes(spec: URL): Promise<GeneratedFile> {
  const ast = await openapiTS(spec, {
    transform: (schema) => (schema.format === 'int64' ? tsUnion([NUMBER, BIGINT]) : undefined),
  });
  return { name: 'openapi.d.ts', text: COMMENT_HEADER + astToString(ast) };
}
