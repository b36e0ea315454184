import { expect } from 'chai';
import { LINK_TTL_SECONDS, linkSigner } from '../../usecases/coverage/signed-links.js';

const SECRET = 'test-link-signing-key-of-at-least-32-chars';
const PATH = '/v1/policy/coverage/emp_abc/health-card/pol_xyz.pdf';
const NOW = new Date('2026-11-22T06:00:00Z');
const NOW_S = NOW.getTime() / 1000;
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

/** Splits a signed `path?query` the way a request arrives: path and raw query string. */
const split = (link: string) => {
  const at = link.indexOf('?');
  return { path: link.slice(0, at), query: link.slice(at + 1) };
};

describe('pre-signed links (D10)', () => {
  const signer = linkSigner(SECRET);
  const link = split(signer.sign('GET', PATH, NOW));
  const signature = new URLSearchParams(link.query).get('signature')!;
  const expires = NOW_S + LINK_TTL_SECONDS;

  it('carries only the path, the expiry one hour ahead and a hex HMAC-SHA256', () => {
    expect(link.path).to.equal(PATH);
    expect(link.query).to.match(/^expires=\d+&signature=[0-9a-f]{64}$/);
    expect(link.query).to.equal(`expires=${expires}&signature=${signature}`);
  });

  it('verifies from signing up to and including the expiry second, and not a second later', () => {
    expect(signer.verify('GET', PATH, link.query, NOW)).to.deep.equal({ ok: true });
    expect(signer.verify('GET', PATH, link.query, at(LINK_TTL_SECONDS))).to.deep.equal({ ok: true });
    expect(signer.verify('GET', PATH, link.query, at(LINK_TTL_SECONDS + 1))).to.deep.equal({
      ok: false,
      reason: 'expired',
    });
  });

  it('is deterministic for the same path and time, and differs for another path', () => {
    expect(signer.sign('GET', PATH, NOW)).to.equal(`${PATH}?${link.query}`);
    expect(split(signer.sign('GET', PATH.replace('pol_xyz', 'pol_xyw'), NOW)).query).to.not.equal(link.query);
  });

  it('refuses a link whose signature does not cover what was sent', () => {
    const flipped = signature.slice(0, 10) + (signature[10] === '0' ? '1' : '0') + signature.slice(11);
    const cases: [string, string, string, string][] = [
      ['flipped signature character', 'GET', PATH, `expires=${expires}&signature=${flipped}`],
      ['expiry moved later', 'GET', PATH, `expires=${expires + 60}&signature=${signature}`],
      ['expiry moved earlier', 'GET', PATH, `expires=${expires - 1}&signature=${signature}`],
      ['other employee', 'GET', PATH.replace('emp_abc', 'emp_abd'), link.query],
      ['other policy', 'GET', PATH.replace('pol_xyz', 'pol_xyw'), link.query],
      ['other method', 'POST', PATH, link.query],
    ];
    for (const [label, method, path, query] of cases) {
      expect(signer.verify(method, path, query, NOW), label).to.deep.equal({
        ok: false,
        reason: 'signature',
      });
    }
    expect(linkSigner(`${SECRET}-other`).verify('GET', PATH, link.query, NOW), 'other key').to.deep.equal({
      ok: false,
      reason: 'signature',
    });
  });

  it('refuses extra, missing, repeated or malformed parameters before checking anything else', () => {
    const queries: [string, string][] = [
      ['extra parameter', `${link.query}&x=1`],
      ['extra parameter first', `x=1&${link.query}`],
      ['missing signature', `expires=${expires}`],
      ['missing expires', `signature=${signature}`],
      ['no query', ''],
      ['repeated signature', `signature=${signature}&signature=${signature}`],
      ['repeated expires', `expires=${expires}&expires=${expires}`],
      ['trailing separator', `${link.query}&`],
      ['upper-case hex', `expires=${expires}&signature=${signature.toUpperCase()}`],
      ['short signature', `expires=${expires}&signature=${signature.slice(0, 62)}`],
      [
        'base64 signature',
        `expires=${expires}&signature=${Buffer.from(signature, 'hex').toString('base64url')}`,
      ],
      ['expiry not a number', `expires=${expires}x&signature=${signature}`],
      ['expiry with sign', `expires=%2B${expires}&signature=${signature}`],
      ['expiry with leading zero', `expires=0${expires}&signature=${signature}`],
      ['encoded name', `expire%73=${expires}&signature=${signature}`],
    ];
    for (const [label, query] of queries) {
      expect(signer.verify('GET', PATH, query, NOW), label).to.deep.equal({ ok: false, reason: 'malformed' });
    }
  });

  it('accepts the two parameters in either order', () => {
    expect(signer.verify('GET', PATH, `signature=${signature}&expires=${expires}`, NOW)).to.deep.equal({
      ok: true,
    });
  });
});
