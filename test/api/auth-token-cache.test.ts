import { expect } from 'chai';
import { createTokenService } from '../../api/auth/tokens.js';
import { fixedClock } from '../../domain/clock.js';

/** The verified-token cache must never outlive a token or admit one it did not verify. */
describe('token verification cache', () => {
  const keys = [{ kid: 'k1', secret: 's'.repeat(40) }];
  const make = (clock = fixedClock('2026-11-22T10:00:00Z')) => ({
    clock,
    tokens: createTokenService({ keys, issuer: 'iss', audience: 'aud', clock }),
  });

  it('answers a repeated token from the cache until it expires, then refuses it', () => {
    const { clock, tokens } = make();
    const token = tokens.issue('cli_a', ['policy.get'], 1);
    expect(tokens.verify(token)?.clientId).to.equal('cli_a');
    clock.advance(3600_000 + 29_000);
    expect(tokens.verify(token)?.clientId, 'inside the 30 s skew').to.equal('cli_a');
    clock.advance(2_000);
    expect(tokens.verify(token)).to.equal(null);
    expect(tokens.verify(token), 'and stays refused').to.equal(null);
  });

  it('does not cache a forged token, so its genuine twin still verifies on its own merit', () => {
    const { tokens } = make();
    const token = tokens.issue('cli_a', ['policy.get'], 1);
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(tokens.verify(forged)).to.equal(null);
    expect(tokens.verify(forged)).to.equal(null);
    expect(tokens.verify(token)?.tokenId).to.be.a('string');
  });

  it('refuses a token issued in the future beyond the skew', () => {
    const future = make(fixedClock('2026-11-22T11:00:00Z')).tokens.issue('cli_a', ['policy.get'], 1);
    expect(make(fixedClock('2026-11-22T10:00:00Z')).tokens.verify(future)).to.equal(null);
  });
});
