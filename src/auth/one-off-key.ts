// The key a service without API_KEYS runs with, in a file only its owner can read: npm start writes
// a fresh one each start, npm run dev one that it keeps across restarts.
import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';

/** A new random key, written to `file` (mode 600, also when the file was there before). */
export async function writeOneOffKey(file: string): Promise<string> {
  const key = randomBytes(32).toString('base64url');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return key;
}
