import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The outbound-address rule for URLs a caller chooses (server-side request forgery): such a URL
 * may only reach a public address. Loopback, private (RFC 1918, unique-local), link-local (the
 * cloud metadata service), carrier-grade NAT, multicast, reserved and documentation ranges are
 * refused, also behind an IPv4-mapped or NAT64 IPv6 address. The check runs on the addresses
 * the connection is made to (a lookup hook), so a DNS answer cannot rebind it after the check.
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/** Whether an IP address is a public unicast address (anything else is refused to caller-chosen URLs). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return isPublicAddress(v4);
    return !BLOCKED.check(address, 'ipv6');
  }
  return false;
}

/** Thrown (as the connection's error) when a caller-chosen URL resolves to an address it may not reach. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';
  constructor(readonly host: string) {
    super(`${host} resolves to an address that is not public`);
  }
}

/**
 * A DNS lookup for outbound connections to caller-chosen hosts: every address the name resolves
 * to must be public (one that is not fails the connection with BlockedAddressError), unless
 * `allowPrivate`. Pass it as undici's `connect.lookup`.
 */
export function guardedLookup(allowPrivate = false): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      if (!allowPrivate && (list.length === 0 || list.some((a) => !isPublicAddress(a.address)))) {
        return callback(new BlockedAddressError(hostname) as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return callback(null, list);
      const first = list[0]!;
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

/**
 * Whether a URL's host may be connected to under the rule: a literal IP address must be public
 * (no lookup runs for one); a name is checked by guardedLookup when connecting.
 */
export function literalHostAllowed(url: URL, allowPrivate = false): boolean {
  if (allowPrivate) return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPublicAddress(host);
  return !/^localhost$|\.localhost$/i.test(host);
}
