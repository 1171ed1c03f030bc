/**
 * Whether an address is on the public internet, and a DNS lookup that refuses the others. The
 * service sends requests to URLs its users gave it (Web Push endpoints); this is what keeps it
 * from being turned into a forger of requests to its own network: a public host name that
 * resolves to 127.0.0.1 or 10.x is refused at connect time, not only when the URL is saved.
 */
import dns from 'node:dns';
import { BlockList, isIP, LookupFunction } from 'node:net';

/** Not reachable on the public internet, or not meant to be (IANA special-purpose registries). */
const NOT_PUBLIC = new BlockList();
for (const subnet of [
  '0.0.0.0/8', // "this" network
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local (cloud metadata services live here)
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, broadcast
]) {
  const [address, prefix] = subnet.split('/');
  NOT_PUBLIC.addSubnet(address, Number(prefix), 'ipv4');
}
for (const subnet of [
  '::/127', // unspecified, loopback
  '64:ff9b::/96', // NAT64: may carry a private IPv4 address
  '64:ff9b:1::/48',
  '100::/64', // discard
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4: may carry a private IPv4 address
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'ff00::/8', // multicast
]) {
  const [address, prefix] = subnet.split('/');
  NOT_PUBLIC.addSubnet(address, Number(prefix), 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  if (version === 6) {
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return isPublicAddress(mapped[1]);
    if (/^::ffff:/i.test(address)) return false;
  }
  return !NOT_PUBLIC.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * `dns.lookup` for http(s).request's `lookup` option: fails when any address of the name is
 * not public, so a connection never reaches one (whichever address the socket would try).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused || addresses.length === 0) {
      const denied = Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'ENOTPUBLIC' });
      return callback(denied, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};
