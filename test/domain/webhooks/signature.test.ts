import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { newWebhookSecret, signWebhook, verifyWebhook } from '../../../domain/webhooks/signature.js';

describe('webhook signatures', () => {
  const secret = newWebhookSecret();
  const body =
    '{"id":"evt_1","type":"endorsement.status_changed","data":{"new_status":"ENDORSEMENT_STATUS_APPROVED"}}';
  const t = 1_760_000_000;

  it('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>"> keyed with the secret', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signWebhook(secret, body, t)).to.equal(`t=${t},v1=${expected}`);
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).to.not.equal(secret);
  });

  it('verifies the body it signed within five minutes either way', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhook(secret, body, header, t)).to.deep.equal({ ok: true });
    expect(verifyWebhook(secret, body, header, t + 300)).to.deep.equal({ ok: true });
    expect(verifyWebhook(secret, body, header, t - 300)).to.deep.equal({ ok: true });
  });

  it('fails a tampered body, another secret, and a shifted timestamp', () => {
    const header = signWebhook(secret, body, t);
    const tampered = body.replace('APPROVED', 'REJECTED');
    expect(verifyWebhook(secret, tampered, header, t)).to.deep.equal({ ok: false, reason: 'mismatch' });
    expect(verifyWebhook(secret, `${body} `, header, t)).to.deep.equal({ ok: false, reason: 'mismatch' });
    expect(verifyWebhook(newWebhookSecret(), body, header, t)).to.deep.equal({
      ok: false,
      reason: 'mismatch',
    });
    const shifted = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyWebhook(secret, body, shifted, t)).to.deep.equal({ ok: false, reason: 'mismatch' });
  });

  it('rejects a replay older than five minutes', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhook(secret, body, header, t + 301)).to.deep.equal({ ok: false, reason: 'too_old' });
  });

  it('rejects missing or malformed headers', () => {
    for (const header of [undefined, '', 'v1=abc', `t=${t}`, `t=x,v1=${'0'.repeat(64)}`, `t=${t},v1=zz`]) {
      expect(verifyWebhook(secret, body, header, t), String(header)).to.deep.equal({
        ok: false,
        reason: 'malformed',
      });
    }
  });

  it('accepts the header when any of several v1 values matches (receiver rotating secrets)', () => {
    const header = signWebhook(secret, body, t);
    const other = signWebhook(newWebhookSecret(), body, t).split(',')[1]!;
    expect(
      verifyWebhook(secret, body, `${header.split(',')[0]},${other},${header.split(',')[1]}`, t).ok,
    ).to.equal(true);
  });
});
