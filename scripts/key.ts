// `npm run key -- --client NAME [--roles pets:read,pets:write] [--expires 2027-01-31]`: a new API
// key, 32 bytes from the OS's CSPRNG. Prints the key once (give it to the caller), then the entry to
// add to API_KEYS_FILE, which carries its SHA-256 and never the key (docs/operating.md).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { CLIENT_NAME } from '../src/auth/api-clients.js';
import { sha256Hex } from '../src/auth/api-clients.js';
import { keysFileTable } from '../src/auth/keys-file.js';
import { rolesOf } from '../src/auth/roles.js';
import { loadSpec } from '../src/openapi/openapi-spec.js';

const USAGE =
  'usage: npm run key -- --client NAME [--roles pets:read[,pets:write]] [--expires 2027-01-31 | 2027-01-31T00:00:00Z]';
const fail = (message: string): never => {
  console.error(`key: ${message}\n${USAGE}`);
  process.exit(2);
};

let values: { client?: string; roles?: string; expires?: string };
try {
  ({ values } = parseArgs({
    options: { client: { type: 'string' }, roles: { type: 'string' }, expires: { type: 'string' } },
  }));
} catch (error) {
  fail((error as Error).message);
}
const client = values!.client ?? fail('--client is required');
if (!CLIENT_NAME.test(client)) fail('--client must be 1 to 32 characters from a-z 0-9 - _');
const entry: Record<string, unknown> = { client, sha256: '' };
if (values!.roles !== undefined) entry['roles'] = values!.roles.split(',').map((role) => role.trim());
if (values!.expires !== undefined) entry['expires'] = values!.expires;

const key = randomBytes(32).toString('base64url');
entry['sha256'] = sha256Hex(key);
const text = stringify({ keys: [entry] });
// The entry as the service will read it: a role openapi.yaml does not name, or a bad date, fails here.
try {
  keysFileTable(text, 'the new entry', rolesOf(loadSpec()));
} catch (error) {
  fail((error as Error).message);
}
console.log(`API key for ${client} (shown once; give it to the caller, keep no copy):\n\n  ${key}\n`);
console.log('Add this entry under keys: in API_KEYS_FILE, then send SIGHUP (or wait for the file to be read again):\n');
console.log(text.replace(/^keys:\n/, '').trimEnd());
