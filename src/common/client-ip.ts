/**
 * The caller's address, for rate limits and logs: one function for HTTP requests and
 * websocket upgrades alike (docs/decisions.md "Client address behind proxies").
 *
 * Without TRUST_PROXY it is the socket's address. With it, the address chain is the socket's
 * address followed by the X-Forwarded-For entries from right to left (each proxy appends the
 * address it saw, as nginx's `$proxy_add_x_forwarded_for`); the client is the first address
 * of that chain which is not a trusted proxy. The left-most entries are written by the client
 * and are never believed unless every proxy after them is trusted. This is Express's
 * `trust proxy` with a hop count or the proxies' addresses (proxy-addr's walk).
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** TRUST_PROXY parsed: how many proxies stand in front, or which addresses are proxies. */
export type ProxyTrust = false | { hops: number } | { addresses: string[] };

/** Is the address at position `hop` of the chain (0 = the socket's peer) a trusted proxy? */
export type TrustFn = (address: string, hop: number) => boolean;

/** The names Express accepts for common proxy ranges. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * TRUST_PROXY: `false` (default) / `true` (one proxy) / a number of proxies / a comma-separated
 * list of proxy addresses, subnets (CIDR) and the names loopback, linklocal, uniquelocal.
 * Throws an Error naming what is wrong.
 */
export function parseProxyTrust(raw: string | undefined): ProxyTrust {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '' || ['false', 'no', '0'].includes(value)) return false;
  if (['true', 'yes'].includes(value)) return { hops: 1 };
  if (/^\d+$/.test(value)) return { hops: Number(value) };
  const addresses = value.split(',').map((entry) => entry.trim());
  for (const entry of addresses) {
    if (!(entry in NAMED_RANGES) && !subnetOf(entry)) throw new Error(`"${entry}" is not an address, a subnet or a range name`);
  }
  return { addresses };
}

function subnetOf(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, bits, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  if (bits !== undefined && !/^\d+$/.test(bits)) return undefined;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The trust function of a setting; undefined when no proxy is trusted. */
export function compileTrust(trust: ProxyTrust): TrustFn | undefined {
  if (trust === false) return undefined;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  const list = new BlockList();
  for (const entry of trust.addresses.flatMap((e) => NAMED_RANGES[e] ?? [e])) {
    const { address, prefix, family } = subnetOf(entry)!;
    list.addSubnet(address, prefix, family);
  }
  return (address) => {
    const version = isIP(address);
    return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}

/** The client's address: the socket's peer, or the first untrusted address of the chain. */
export function clientIp(request: IncomingMessage, trust: TrustFn | undefined): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (!trust) return peer;
  const header = request.headers['x-forwarded-for'];
  const forwarded = Array.isArray(header) ? header.join(',') : header;
  if (!forwarded) return peer;
  const chain = [
    peer,
    ...forwarded
      .split(',')
      .map((entry) => entry.trim())
      .reverse(),
  ];
  for (let hop = 0; hop < chain.length - 1; hop++) {
    if (!trust(chain[hop], hop)) return chain[hop];
  }
  // Every proxy trusted: the left-most entry is the client (or an empty entry: the last proxy).
  return chain[chain.length - 1] || chain[chain.length - 2];
}
