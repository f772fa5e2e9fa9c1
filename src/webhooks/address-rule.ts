// Where an endpoint added through the API may point (OWASP API7, server-side request forgery): not
// at this host, the deployment's private network, or a cloud's metadata service. Checked when the
// URL is set (by its literal address, or what its host name resolves to) and again as each delivery
// connects (lookupOutside, used by the connection itself, so that a name that resolves elsewhere
// the second time, DNS rebinding, is refused too). WEBHOOK_ALLOW_PRIVATE_URLS=on lifts the rule.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** The ranges refused, each with how a message names it. */
const RANGES: readonly [network: string, prefix: number, family: 'ipv4' | 'ipv6', name: string][] = [
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['0.0.0.0', 8, 'ipv4', 'this host'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::', 128, 'ipv6', 'this host'],
  ['fc00::', 7, 'ipv6', 'private (unique local)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
];

const lists = RANGES.map(([network, prefix, family, name]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, name, range: `${network}/${prefix}` };
});

export const ADDRESS_RULE =
  'webhook endpoints may not point at loopback, private, link-local or metadata addresses ' +
  '(127.0.0.0/8, ::1, 0.0.0.0/8, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, fc00::/7, fe80::/10)';

/** Why `address` (an IP address) is refused, naming its range; undefined when it is not. */
export function refusedAddress(address: string): string | undefined {
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  const found = lists.find((candidate) => candidate.family === family && candidate.list.check(ip, family));
  return found === undefined ? undefined : `${address} is a ${found.name} address (${found.range})`;
}

export type Resolve = (host: string) => Promise<readonly LookupAddress[]>;

/** How long a check waits for a name to resolve; one that does not resolve is refused at delivery instead. */
const RESOLVE_MS = 2_000;

export const resolveAll: Resolve = (host) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${RESOLVE_MS} ms`)), RESOLVE_MS);
    dnsLookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error === null) resolve(addresses);
      else reject(error);
    });
  });

/**
 * Why `url` breaks the rule, naming the address and its range; undefined when it keeps it. A host
 * name that does not resolve now keeps it: each delivery checks again, and is refused then.
 */
export async function urlBreaksRule(url: URL, resolve: Resolve = resolveAll): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) return refusedAddress(host);
  let addresses: readonly LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    return undefined;
  }
  for (const { address } of addresses) {
    const refused = refusedAddress(address);
    if (refused !== undefined) return `${host} resolves to ${refused}`;
  }
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that refuses a name resolving to an address the rule refuses: the
 * connection is then never made. Its error names the address and the rule.
 */
export function lookupOutside(
  hostname: string,
  options: object,
  callback: LookupCallback,
  lookup: typeof dnsLookup = dnsLookup,
): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, []);
    const refused = addresses.map(({ address }) => refusedAddress(address)).find((reason) => reason !== undefined);
    if (refused !== undefined)
      return callback(
        Object.assign(new Error(`${hostname}: ${refused}; ${ADDRESS_RULE}`), { code: 'EREFUSEDADDRESS' }),
        [],
      );
    if ((options as { all?: boolean }).all === true) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
