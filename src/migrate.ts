// `npm run migrate`: brings the schema of DATABASE_URL up to date and exits, for deployments that
// migrate as a step of their own. The service does the same at start-up (src/store/postgres/start.ts).
import pg from 'pg';
import { readConfig } from './config.js';
import { migrate } from './store/postgres/migrate.js';

async function main() {
  const { database } = readConfig(process.env);
  if (database === undefined) throw new Error('DATABASE_URL is not set');
  const pool = new pg.Pool({ connectionString: database.url, max: 1, connectionTimeoutMillis: database.timeoutMs });
  try {
    const applied = await migrate(pool);
    console.log(applied.length === 0 ? 'migrate: the schema is current' : `migrate: applied ${applied.join(', ')}`);
  } finally {
    await pool.end();
  }
}

main().catch((error: Error) => {
  console.error(`migrate: ${error.message}`);
  process.exit(1);
});
