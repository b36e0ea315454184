import { expect } from 'chai';
import { DUMMY_HASH, hashSecret, newClientSecret, SCRYPT, verifySecret } from '../../domain/credentials.js';

describe('client secret storage (D3)', () => {
  it('stores a salted scrypt hash that verifies only the same secret', async () => {
    const secret = newClientSecret();
    const [first, second] = await Promise.all([hashSecret(secret), hashSecret(secret)]);

    expect(first).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).to.not.contain(secret);
    expect(first, 'salted').to.not.equal(second);
    expect(await verifySecret(secret, first)).to.equal(true);
    expect(await verifySecret(secret, second)).to.equal(true);
    expect(await verifySecret(`${secret}x`, first)).to.equal(false);
    expect(await verifySecret(secret.slice(0, -1), first)).to.equal(false);
  });

  it('issues distinct unguessable secrets', () => {
    const secrets = new Set(Array.from({ length: 50 }, newClientSecret));
    expect(secrets.size).to.equal(50);
    for (const s of secrets) expect(s).to.match(/^sk_[A-Za-z0-9_-]{43}$/);
  });

  it('has a dummy hash with the real cost parameters that matches no secret', async () => {
    const [, n, r, p, , hash] = DUMMY_HASH.split('$');
    expect([Number(n), Number(r), Number(p)]).to.deep.equal([SCRYPT.N, SCRYPT.r, SCRYPT.p]);
    expect(Buffer.from(hash!, 'base64url')).to.have.length(SCRYPT.keylen);
    expect(await verifySecret('', DUMMY_HASH)).to.equal(false);
    expect(await verifySecret(newClientSecret(), DUMMY_HASH)).to.equal(false);
  });

  it('refuses malformed stored hashes instead of throwing', async () => {
    for (const stored of ['', 'plain', 'bcrypt$1$2$3$abc$def', 'scrypt$16384$8$1$$']) {
      expect(await verifySecret('sk_anything', stored), stored).to.equal(false);
    }
  });
});
