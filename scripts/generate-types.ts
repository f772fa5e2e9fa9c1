// Writes generated/openapi.d.ts from openapi.yaml; with --check, fails instead when the file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, NUMBER, tsUnion } from 'openapi-typescript';
import ts from 'typescript';

const spec = new URL('../openapi.yaml', import.meta.url);
const output = new URL('../generated/openapi.d.ts', import.meta.url);

// int64 values beyond 2^53 reach the handlers as bigint (see src/validation/json-body-parser.ts).
const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);

const ast = await openapiTS(spec, {
  transform: (schema) => (schema.format === 'int64' ? tsUnion([NUMBER, BIGINT]) : undefined),
});
const text = COMMENT_HEADER + astToString(ast);

if (process.argv.includes('--check')) {
  const current = await readFile(output, 'utf8').catch(() => '');
  if (current !== text) {
    console.error(`${fileURLToPath(output)} is stale: run \`npm run generate\` and commit the result.`);
    process.exit(1);
  }
  console.log('generated/openapi.d.ts is current.');
} else {
  await writeFile(output, text);
  console.log(`wrote ${fileURLToPath(output)}`);
}
