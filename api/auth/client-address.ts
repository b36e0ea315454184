import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type Koa from 'koa';

/** `TRUSTED_PROXIES`: CIDR blocks (or single addresses) of the proxies whose X-Forwarded-For we believe. */
export function trustedProxies(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split('/');
    const type = isIPv6(address!) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(bits), type);
  }
  return list;
}

const plain = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
const familyOf = (address: string) => (isIPv4(address) ? 'ipv4' : 'ipv6');
const isTrusted = (proxies: BlockList, address: string) =>
  (isIPv4(address) || isIPv6(address)) && proxies.check(address, familyOf(address));

/**
 * The caller's address: the TCP peer, unless the peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy (entries left of it were
 * written by the caller and prove nothing). With no trusted proxies the header is never read.
 */
export function clientAddress(ctx: Koa.Context, proxies: BlockList): string {
  let address = plain(ctx.req.socket.remoteAddress ?? 'unknown');
  if (!isTrusted(proxies, address)) return address;
  const forwarded = ctx
    .get('x-forwarded-for')
    .split(',')
    .map((entry) => plain(entry.trim()))
    .filter(Boolean);
  while (forwarded.length > 0 && isTrusted(proxies, address)) {
    const next = forwarded.pop()!;
    if (!isIPv4(next) && !isIPv6(next)) break;
    address = next;
  }
  return address;
}
