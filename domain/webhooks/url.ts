import { isIP } from 'node:net';

/**
 * Where webhooks may be sent. Only http(s); in production only https. Private, loopback,
 * link-local and other non-public addresses are refused unless WEBHOOK_ALLOW_PRIVATE is set, both
 * when an endpoint is registered and at every delivery (a name may resolve elsewhere by then), and
 * a delivery's connection uses exactly the addresses that were checked (no second lookup).
 */
export class WebhookUrlRefused extends Error {}

export interface UrlPolicy {
  httpsOnly: boolean;
  allowPrivate: boolean;
}

export const urlPolicy = (config: { NODE_ENV: string; WEBHOOK_ALLOW_PRIVATE: boolean }): UrlPolicy => ({
  httpsOnly: config.NODE_ENV === 'production',
  allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
});

const MAX_URL_LENGTH = 2048;

/** The URL's form: scheme, no embedded credentials (they would sit in logs and listings), length. */
export function parseWebhookUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('the URL is not a valid absolute URL');
  }
  if (raw.length > MAX_URL_LENGTH) throw new WebhookUrlRefused(`the URL is longer than ${MAX_URL_LENGTH}`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookUrlRefused('only http and https URLs are accepted');
  }
  if (policy.httpsOnly && url.protocol !== 'https:') {
    throw new WebhookUrlRefused('only https URLs are accepted in production');
  }
  if (url.username || url.password) throw new WebhookUrlRefused('the URL must not carry credentials');
  return url;
}

// ---------------------------------------------------------------------------------- address ranges

type Range = [prefix: string, bits: number, label: string];

const V4_RANGES: Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private (shared address space)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/**
 * IPv6 is an allow-list: only global unicast (2000::/3) passes, less the parts of it that are not a
 * host on the internet. Everything outside it is refused, named by the first range that matches.
 */
const V6_GLOBAL_UNICAST: [string, number] = ['2000::', 3];
const V6_RANGES: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'NAT64 (local use)'],
  ['100::', 64, 'reserved'],
  ['2001::', 32, 'Teredo tunnel'],
  ['2001::', 23, 'reserved (IETF protocol assignments)'],
  ['2001:db8::', 32, 'reserved'],
  ['3fff::', 20, 'reserved'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
];

/** IPv6 prefixes that carry an IPv4 address, checked as that address: [prefix, bits, its bit offset]. */
const V4_CARRIERS: [string, number, number][] = [
  ['::ffff:0:0', 96, 96], // IPv4-mapped: the socket goes to that IPv4 address
  ['2002::', 16, 16], // 6to4
];

function v4Value(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function v6Value(address: string): bigint {
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4Value(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const within = (value: bigint, prefix: bigint, bits: number, width: number) =>
  value >> BigInt(width - bits) === prefix >> BigInt(width - bits);

/** Why an address is not a public one (e.g. 'loopback'), or null for a public address. */
export function nonPublicReason(address: string): string | null {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) {
    const value = v4Value(address);
    return V4_RANGES.find(([p, bits]) => within(value, v4Value(p), bits, 32))?.[2] ?? null;
  }
  if (family !== 6) return 'not an IP address';
  const value = v6Value(address);
  if (value <= 1n) return value === 0n ? 'unspecified' : 'loopback';
  for (const [prefix, bits, offset] of V4_CARRIERS) {
    if (within(value, v6Value(prefix), bits, 128)) {
      const v4 = (value >> BigInt(128 - offset - 32)) & 0xffffffffn;
      return nonPublicReason([24n, 16n, 8n, 0n].map((s) => String((v4 >> s) & 0xffn)).join('.'));
    }
  }
  const named = V6_RANGES.find(([p, bits]) => within(value, v6Value(p), bits, 128))?.[2];
  if (named) return named;
  const [globalPrefix, globalBits] = V6_GLOBAL_UNICAST;
  return within(value, v6Value(globalPrefix), globalBits, 128) ? null : 'not global unicast';
}

export function refuseNonPublic(host: string, addresses: readonly string[], policy: UrlPolicy): void {
  if (policy.allowPrivate) return;
  for (const address of addresses) {
    const reason = nonPublicReason(address);
    if (reason) {
      throw new WebhookUrlRefused(
        `${host} resolves to a ${reason} address (${address}); set WEBHOOK_ALLOW_PRIVATE=true to allow`,
      );
    }
  }
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Delivery: the form and an IP literal are checked before connecting; a name is checked inside the
 * connection's own lookup (usecases/webhooks/address.ts), so the socket goes to an address that passed.
 */
export function checkBeforeConnect(raw: string, policy: UrlPolicy): URL {
  const url = parseWebhookUrl(raw, policy);
  const host = hostOf(url);
  if (isIP(host)) refuseNonPublic(host, [host], policy);
  return url;
}
