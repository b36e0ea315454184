import { expect } from 'chai';
import { nonPublicReason, parseWebhookUrl, type UrlPolicy } from '../../../domain/webhooks/url.js';

const dev: UrlPolicy = { httpsOnly: false, allowPrivate: false };
const production: UrlPolicy = { httpsOnly: true, allowPrivate: false };

/** The pure rules of webhook addresses: no DNS, no database. */
describe('webhook URL policy', () => {
  it('accepts only absolute http(s) URLs without credentials; https only in production', () => {
    expect(parseWebhookUrl('https://hooks.example.com/x', production).href).to.equal(
      'https://hooks.example.com/x',
    );
    expect(parseWebhookUrl('http://hooks.example.com/x', dev).protocol).to.equal('http:');
    expect(() => parseWebhookUrl('http://hooks.example.com/x', production)).to.throw(/only https/);
    expect(() => parseWebhookUrl('ftp://hooks.example.com/x', dev)).to.throw(/only http and https/);
    expect(() => parseWebhookUrl('file:///etc/passwd', dev)).to.throw(/only http and https/);
    expect(() => parseWebhookUrl('/relative', dev)).to.throw(/not a valid absolute URL/);
    expect(() => parseWebhookUrl('https://user:pw@hooks.example.com/', dev)).to.throw(/credentials/);
    expect(() => parseWebhookUrl(`https://hooks.example.com/${'a'.repeat(2100)}`, dev)).to.throw(/longer/);
  });

  it('names every non-public IPv4 range and admits only global unicast IPv6, checking IPv4 carried in IPv6', () => {
    const cases: [string, string | null][] = [
      ['127.0.0.1', 'loopback'],
      ['10.20.30.40', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['100.64.0.1', 'private (shared address space)'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['fd12:3456::1', 'private'],
      ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['64:ff9b::a00:1', 'NAT64'],
      ['64:ff9b::808:808', 'NAT64'],
      ['64:ff9b:1::a9fe:a9fe', 'NAT64 (local use)'],
      ['2001::1', 'Teredo tunnel'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo tunnel'],
      ['2001:2::1', 'reserved (IETF protocol assignments)'],
      ['::ffff:0:a9fe:a9fe', 'not global unicast'],
      ['::a9fe:a9fe', 'not global unicast'],
      ['1234::1', 'not global unicast'],
      ['3fff::1', 'reserved'],
      ['192.88.99.1', 'reserved'],
      ['2002:c0a8:101::1', 'private'],
      ['8.8.8.8', null],
      ['172.32.0.1', null],
      ['::ffff:8.8.8.8', null],
      ['2606:4700:4700::1111', null],
    ];
    for (const [address, reason] of cases) expect(nonPublicReason(address), address).to.equal(reason);
  });
});
