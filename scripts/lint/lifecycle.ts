// npm run lint -- spec's lifecycle step: every operation's lifecycle markers (x-stability,
// x-deprecated-at, x-sunset, x-replaced-by, x-brownouts) read by the service's own reader
// (src/openapi/lifecycle.ts), so that the lint refuses exactly what would stop the service at
// start-up, and our notice policy besides. Prints each problem at its line, as Spectral does.
//   tsx scripts/lint/lifecycle.ts [openapi.yaml …]
import { accessSync, constants, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { LineCounter, parseDocument, type Node } from 'yaml';
import { readLifecycle } from '../../src/openapi/lifecycle.js';
import { DEFAULT_SPEC_PATH, operationsOf, type OpenApiDocument } from '../../src/openapi/openapi-spec.js';

export interface Finding {
  /** 1-based, as editors count. */
  line: number;
  column: number;
  operationId: string;
  message: string;
}

/** The lifecycle problems of the document in `file`, each where it stands in the file. */
export function lintLifecycle(file: string): Finding[] {
  const lines = new LineCounter();
  const document = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines });
  // The markers are text and booleans: the document as YAML reads it, without the service's exact integers.
  const operations = operationsOf(document.toJS() as OpenApiDocument);
  return operations.flatMap((operation) =>
    readLifecycle(operation, operations).problems.map(({ field, message }) => {
      // Every problem is at a marker the operation has (`deprecated` when x-deprecated-at is missing).
      const at = document.getIn(['paths', operation.path, operation.method, field], true) as Node;
      const { line, col } = lines.linePos(at.range![0]);
      return { line, column: col, operationId: operation.operationId, message };
    }),
  );
}

/** What the lint prints for `files`, each problem as Spectral prints its findings, then their count; and that count. */
export function lifecycleReport(files: string[]): { lines: string[]; found: number } {
  const problems = files.flatMap((file) =>
    lintLifecycle(file).map(
      ({ line, column, operationId, message }) =>
        `${file}:${line}:${column} error petstore-lifecycle ${operationId}: ${message}`,
    ),
  );
  const found = problems.length;
  return { lines: found === 0 ? [] : [...problems, `${found} lifecycle problem${found === 1 ? '' : 's'}`], found };
}

/** Why the first of `files` that cannot be read cannot be, for a lint to say instead of a stack trace. */
export function unreadable(files: string[]): string | undefined {
  for (const file of files) {
    try {
      accessSync(file, constants.R_OK);
    } catch (error) {
      return `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`;
    }
  }
  return undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : [DEFAULT_SPEC_PATH];
  const problem = unreadable(files);
  if (problem !== undefined) {
    console.error(problem);
    process.exit(2);
  }
  const { lines, found } = lifecycleReport(files);
  for (const line of lines) console.log(line);
  process.exitCode = found === 0 ? 0 : 1;
}
