// API_KEYS_FILE's reader: a usable file gives its keys; an unusable one is refused with its line and
// reason, never a key's text.
import { createHash } from 'node:crypto';
import t from 'tap';
import { keysFileTable } from '../../src/auth/keys-file.js';

// An operator's role beside the two a key gets when its entry names none.
const ROLES = { named: ['pets:read', 'pets:write', 'webhooks:manage'], byDefault: ['pets:read', 'pets:write'] };
const KEY = 'file-key-0123456789abcdefghijkl';
const OTHER = 'file-key-other-0123456789abcdef';
const digest = (key: string) => createHash('sha256').update(key).digest('hex');
const read = (text: string) => keysFileTable(text, 'keys.yaml', ROLES);

t.test("a usable file: keys by sha256 or in clear, roles (default: the spec's x-default-roles), expiry", async (t) => {
  const table = read(`keys:
  - client: reporting
    sha256: ${digest(KEY)}
    roles: [pets:read]
    expires: 2027-01-31T00:00:00Z
  - client: local
    key: ${OTHER}
    expires: 2027-02-01
`);
  t.match(table.lookUp(KEY), { client: 'reporting', expiresAt: Date.parse('2027-01-31T00:00:00Z') });
  t.same([...table.lookUp(KEY)!.roles], ['pets:read']);
  t.same([...table.lookUp(OTHER)!.roles], ROLES.byDefault, 'no roles listed: the default ones, no operator role');
  t.equal(table.lookUp(OTHER)!.expiresAt, Date.parse('2027-02-01T00:00:00Z'), 'a date is midnight UTC');
  t.equal(table.lookUp('not-a-key-0123456789'), undefined);
});

t.test('quotas: a default and per client, read with the keys', async (t) => {
  const table = read(
    `keys:\n  - client: reporting\n    sha256: ${digest(KEY)}\nquotas:\n  default: 100/1s\n  clients:\n    reporting: 10/1m\n`,
  );
  t.same(table.quotas.default, { requests: 100, windowSeconds: 1 });
  t.same([...table.quotas.clients], [['reporting', { requests: 10, windowSeconds: 60 }]]);
  t.same([...read(`keys:\n  - client: a\n    sha256: ${digest(KEY)}\n`).quotas.clients], [], 'none: no quotas');
});

t.test('entries share a role list through a YAML anchor and aliases, within a bound', async (t) => {
  const table = read(`keys:
  - client: shop
    sha256: ${digest(KEY)}
    roles: &customer [pets:read]
  - client: kiosk
    key: ${OTHER}
    roles: *customer
`);
  t.same([...table.lookUp(KEY)!.roles], ['pets:read']);
  t.same([...table.lookUp(OTHER)!.roles], ['pets:read'], 'the alias holds what its anchor names');
  const many = Array.from(
    { length: 102 },
    (_, index) =>
      `  - client: c${index}\n    sha256: ${digest(`k${index}`)}\n    roles: ${index === 0 ? '&r [pets:read]' : '*r'}\n`,
  ).join('');
  t.throws(() => read(`keys:\n${many}`), /^keys\.yaml line \d+: more than 100 aliases in one file$/, 'bounded');
  t.throws(
    () => read(`keys:\n  - client: a\n    sha256: ${digest(KEY)}\n    roles: *nowhere\n`),
    /^keys\.yaml line 4: /,
  );
});

t.test('an unusable file is refused with its line and the reason, and never a key', async (t) => {
  const cases: [string, string, RegExp][] = [
    [
      'neither key nor sha256',
      'keys:\n  - client: a\n    roles: [pets:read]\n',
      /^keys\.yaml line 2: entry 1: give exactly one of sha256 .* or key$/,
    ],
    [
      'both',
      `keys:\n  - client: a\n    key: ${KEY}\n    sha256: ${digest(KEY)}\n`,
      /line 2: entry 1: give exactly one of/,
    ],
    [
      'an unknown field',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\n    role: [pets:read]\n`,
      /^keys\.yaml line 4: entry 1: unknown field "role"/,
    ],
    [
      'a role the spec does not name',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\n  - client: b\n    sha256: ${digest(OTHER)}\n    roles: [pets:admin]\n`,
      /^keys\.yaml line 4: entry 2: role "pets:admin" is not named by openapi\.yaml/,
    ],
    [
      'no role at all',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\n    roles: []\n`,
      /line 4: entry 1: roles is empty/,
    ],
    [
      'a bad date',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\n    expires: 31/01/2027\n`,
      /^keys\.yaml line 4: entry 1: expires must be a date/,
    ],
    [
      'an impossible date',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\n    expires: 2027-02-30x\n`,
      /line 4: entry 1: expires must be a date/,
    ],
    [
      'a duplicate key, by digest and in clear',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\n  - client: b\n    key: ${KEY}\n`,
      /^keys\.yaml line 4: entry 2: the same key as an earlier entry \(client a\)$/,
    ],
    [
      'a short key',
      'keys:\n  - client: a\n    key: short-secret\n',
      /^keys\.yaml line 3: entry 1: key must be at least 16 characters/,
    ],
    [
      'a bad digest',
      `keys:\n  - client: a\n    sha256: ${digest(KEY).toUpperCase()}\n`,
      /line 3: entry 1: sha256 must be 64 lower-case hex digits/,
    ],
    [
      'a bad client name',
      `keys:\n  - client: Reporting App\n    sha256: ${digest(KEY)}\n`,
      /line 2: entry 1: client must be 1 to 32 characters/,
    ],
    ['no client', `keys:\n  - sha256: ${digest(KEY)}\n`, /line 2: entry 1: client is required/],
    [
      'an unknown top-level field',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nkey: ${KEY}\n`,
      /^keys\.yaml line 4: unknown field "key"; the file has keys and, optionally, quotas$/,
    ],
    ['an empty file', '', /^keys\.yaml: expected a mapping with the field keys \(and optionally quotas\)$/],
    ['no keys field', '{}\n', /^keys\.yaml line 1: keys must be a list of at least one entry$/],
    [
      'roles that are not a list',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\n    roles: pets:read\n`,
      /line 4: entry 1: roles must be a list of role names/,
    ],
    [
      'a quota that is not one',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nquotas:\n  default: 100 a second\n`,
      /^keys\.yaml line 5: quotas\.default must be <requests>\/<window>/,
    ],
    [
      'a quota of a client without a key',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nquotas:\n  clients:\n    b: 1/1s\n`,
      /^keys\.yaml line 6: quotas\.clients: no key belongs to client "b"/,
    ],
    [
      'quotas that are not a mapping',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nquotas: 100/1s\n`,
      /^keys\.yaml line 4: quotas must be a mapping/,
    ],
    [
      'clients that are not a mapping',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nquotas:\n  clients: [a]\n`,
      /line 5: quotas\.clients must map client names to quotas/,
    ],
    [
      'a quota that is a number',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nquotas:\n  default: 100\n`,
      /^keys\.yaml line 5: quotas\.default must be <requests>\/<window>/,
    ],
    [
      'a client quota left empty',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nquotas:\n  clients:\n    a:\n`,
      /^keys\.yaml line \d+: quotas\.clients\.a must be <requests>\/<window>/,
    ],
    [
      'an unknown quotas field',
      `keys:\n  - client: a\n    sha256: ${digest(KEY)}\nquotas:\n  everyone: 1/1s\n`,
      /line 5: quotas: unknown field "everyone"/,
    ],
    ['no keys', 'keys: []\n', /line 1: keys must be a list of at least one entry/],
    ['not YAML', `keys:\n  - client: a\n    key: "${KEY}\n`, /^keys\.yaml line \d+: not valid YAML \([A-Z_]+\)$/],
    ['an entry that is not a mapping', `keys:\n  - ${KEY}\n`, /^keys\.yaml line 2: entry 1 must be a mapping/],
  ];
  for (const [what, text, reason] of cases) {
    const error = (() => {
      try {
        read(text);
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    t.match(error?.message, reason, what);
    t.notMatch(error?.message ?? '', KEY, `${what}: the key is not in the message`);
    t.notMatch(error?.message ?? '', OTHER);
  }
});
