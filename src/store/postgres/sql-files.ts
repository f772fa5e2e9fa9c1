// The PostgreSQL store's SQL, in sql/ beside this module, read once when the store loads. Found from
// the project's root, so that the service run from src/ (tsx), from dist/ and from the compiled
// tests read the same files: migrations/NNN-name.sql, the schema's versions in order;
// functions/*.sql, the functions and triggers as they run, in name order; statements/*.sql, the
// statements, each a block named by its first line (`-- name: get-pet`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../project-root.js';
import type { Statement } from './statement.js';

export const SQL_DIR = join(PROJECT_ROOT, 'src', 'store', 'postgres', 'sql');

export interface Migration {
  version: number;
  /** As schema_migrations records it: the file's name after the version, its hyphens as spaces. */
  name: string;
  sql: string;
}

const MIGRATION_FILE = /^(\d{3})-([a-z0-9_-]+)\.sql$/;
const NAME_LINE = /^-- name: ([a-z0-9-]+)$/;

const sqlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort();

/** The migrations of `dir`, in version order. */
export function migrationsIn(dir = join(SQL_DIR, 'migrations')): Migration[] {
  return sqlFiles(dir).map((file, index) => {
    const match = MIGRATION_FILE.exec(file);
    if (match === null) throw new Error(`${file}: a migration is named NNN-name.sql`);
    const version = Number(match[1]);
    if (version !== index + 1) throw new Error(`${file}: version ${index + 1} was expected here`);
    return { version, name: match[2]!.replaceAll('-', ' '), sql: readFileSync(join(dir, file), 'utf8') };
  });
}

/** The text of each file of `dir`, in name order. */
export function functionsIn(dir = join(SQL_DIR, 'functions')): string[] {
  return sqlFiles(dir).map((file) => readFileSync(join(dir, file), 'utf8'));
}

/**
 * The named statements of `text`, each without the comment lines that open it or its closing
 * semicolon. What comes before the first name is the file's own comment.
 */
export function namedStatements(text: string, file = 'the text'): Record<string, string> {
  const statements: Record<string, string> = {};
  let name: string | undefined;
  let lines: string[] = [];
  const close = () => {
    if (name === undefined) return;
    const statement = lines.join('\n').trim().replace(/;$/, '');
    if (statement === '') throw new Error(`${file}: ${name} has no statement`);
    statements[name] = statement;
  };
  for (const line of text.split('\n')) {
    const named = NAME_LINE.exec(line);
    if (named !== null) {
      close();
      name = named[1]!;
      if (name in statements) throw new Error(`${file}: ${name} is named twice`);
      lines = [];
    } else if (name !== undefined && !(lines.length === 0 && line.startsWith('--'))) lines.push(line);
  }
  close();
  return statements;
}

/** The named statements of statements/`file`.sql. */
function statementsIn(file: string): Record<string, string> {
  const path = join(SQL_DIR, 'statements', `${file}.sql`);
  return namedStatements(readFileSync(path, 'utf8'), path);
}

/** A statement of statements/`file`.sql, and whether it is sent unprepared (statement.ts). */
type Named = string | { name: string; prepared: false };

/**
 * The statements of statements/`file`.sql by the keys the module uses, each named as its block:
 * every block of the file, none missing, none left unused.
 */
export function statementsOf<K extends string>(file: string, names: Record<K, Named>): Record<K, Statement> {
  const texts = statementsIn(file);
  const statements = {} as Record<K, Statement>;
  const used = new Set<string>();
  for (const [key, named] of Object.entries(names) as [K, Named][]) {
    const name = typeof named === 'string' ? named : named.name;
    const text = texts[name];
    if (text === undefined) throw new Error(`statements/${file}.sql has no statement named ${name}`);
    used.add(name);
    statements[key] = typeof named === 'string' ? { name, text } : { name, text, prepared: false };
  }
  const unused = Object.keys(texts).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`statements/${file}.sql: ${unused.join(', ')} not used`);
  return statements;
}
