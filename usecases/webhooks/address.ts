import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import {
  hostOf,
  parseWebhookUrl,
  refuseNonPublic,
  WebhookUrlRefused,
  type UrlPolicy,
} from '../../domain/webhooks/url.js';

/**
 * The address policy of domain/webhooks/url.ts applied to what names resolve to: at registration
 * (every address of the host) and inside a delivery's own connection lookup (no second lookup).
 */

export type Resolver = (host: string) => Promise<string[]>;
const resolveAll: Resolver = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Registration: the form, then every address the host resolves to (an IP literal is itself). */
export async function checkWebhookUrl(
  raw: string,
  policy: UrlPolicy,
  resolve: Resolver = resolveAll,
): Promise<URL> {
  const url = parseWebhookUrl(raw, policy);
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new WebhookUrlRefused(`${host} does not resolve`);
    }
  }
  refuseNonPublic(host, addresses, policy);
  return url;
}

/** A `lookup` for http.request that refuses when any address of the name is not public. */
export function guardedLookup(policy: UrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '');
      try {
        refuseNonPublic(
          hostname,
          addresses.map((a) => a.address),
          policy,
        );
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
