import { expect } from 'chai';
import { addWebhook } from '../../../usecases/webhooks/endpoints.js';
import type { UrlPolicy } from '../../../domain/webhooks/url.js';
import { checkWebhookUrl } from '../../../usecases/webhooks/address.js';
import { postSigned } from '../../../usecases/webhooks/send.js';
import { makeClient, sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';
import { startReceiver } from '../../support/webhook-receiver.js';

const dev: UrlPolicy = { httpsOnly: false, allowPrivate: false };
const flagged: UrlPolicy = { httpsOnly: false, allowPrivate: true };

const refusal = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('webhook addresses: resolved, stored and checked again when delivering', () => {
  it('refuses a host when any of its addresses is not public, unless the flag allows it', async () => {
    const resolveTo = (addresses: string[]) => () => Promise.resolve(addresses);
    const mixed = resolveTo(['93.184.215.14', '10.0.0.5']);
    expect(await refusal(checkWebhookUrl('https://hooks.example.com/', dev, mixed))).to.match(
      /hooks\.example\.com resolves to a private address \(10\.0\.0\.5\)/,
    );
    const url = await checkWebhookUrl('https://hooks.example.com/', dev, resolveTo(['93.184.215.14']));
    expect(url.hostname).to.equal('hooks.example.com');
    expect((await checkWebhookUrl('https://hooks.example.com/', flagged, mixed)).hostname).to.equal(
      'hooks.example.com',
    );
    const unresolvable = () => Promise.reject(new Error('ENOTFOUND'));
    expect(await refusal(checkWebhookUrl('https://nowhere.invalid/', dev, unresolvable))).to.match(
      /does not resolve/,
    );
    expect(await refusal(checkWebhookUrl('http://[::1]:8080/', dev))).to.match(/loopback/);
    expect(await refusal(checkWebhookUrl('http://localhost:8080/', dev))).to.match(/loopback/);
  });

  it('webhook:add refuses a loopback receiver without WEBHOOK_ALLOW_PRIVATE and stores nothing', async () => {
    const { clientId } = await makeClient();
    const config = { ...stack().config, WEBHOOK_ALLOW_PRIVATE: false };
    expect(
      await refusal(addWebhook(stack().orm.em, config, { clientId, url: 'http://127.0.0.1:9/hooks' })),
    ).to.match(/^refused: 127\.0\.0\.1 resolves to a loopback address/);
    const production = { ...config, NODE_ENV: 'production' as const, WEBHOOK_ALLOW_PRIVATE: true };
    expect(
      await refusal(addWebhook(stack().orm.em, production, { clientId, url: 'http://127.0.0.1:9/' })),
    ).to.match(/only https/);
    const rows = await sql('select id from webhook_endpoints where client_id = ?', [clientId]);
    expect(rows).to.have.length(0);
    const allowed = await addWebhook(
      stack().orm.em,
      { ...config, WEBHOOK_ALLOW_PRIVATE: true },
      { clientId, url: 'http://127.0.0.1:9/hooks', events: 'endorsement.status_changed' },
    );
    expect(allowed.webhook_id).to.match(/^whk_/);
    expect(allowed.events).to.deep.equal(['endorsement.status_changed']);
    expect(
      await refusal(
        addWebhook(
          stack().orm.em,
          { ...config, WEBHOOK_ALLOW_PRIVATE: true },
          { clientId, url: 'https://x.example/', events: 'policy.deleted' },
        ),
      ),
    ).to.match(/unknown event "policy.deleted"/);
  });

  it('checks again when delivering: a name that resolves to loopback gets no request without the flag', async () => {
    const receiver = await startReceiver();
    try {
      const byName = receiver.url.replace('127.0.0.1', 'localhost');
      const post = (policy: UrlPolicy, url = byName) =>
        postSigned({ url, body: '{}', headers: { 'Webhook-Id': 'evt_x' }, policy, timeoutMs: 2_000 });
      const refusedByName = await post(dev);
      expect(refusedByName.statusCode).to.equal(null);
      expect(refusedByName.error).to.match(/^refused: localhost resolves to a loopback address/);
      const refusedLiteral = await post(dev, receiver.url);
      expect(refusedLiteral.error).to.match(/^refused: 127\.0\.0\.1 resolves to a loopback address/);
      expect(receiver.received).to.have.length(0);
      const delivered = await post(flagged);
      expect(delivered).to.include({ statusCode: 200, error: null });
      expect(delivered.latencyMs).to.be.a('number').and.at.least(0);
      expect(receiver.received).to.have.length(1);
    } finally {
      await receiver.close();
    }
  });

  it('reports a timeout, a refused connection and a non-2xx answer as failed attempts', async () => {
    const receiver = await startReceiver((_event, n) => (n === 1 ? 'hang' : 503));
    const post = () =>
      postSigned({
        url: receiver.url,
        body: '{"id":"evt_t"}',
        headers: { 'Webhook-Id': 'evt_t' },
        policy: flagged,
        timeoutMs: 300,
      });
    try {
      expect(await post()).to.deep.include({ statusCode: null, error: 'timeout after 300 ms' });
      expect(await post()).to.deep.include({ statusCode: 503, error: 'HTTP 503' });
    } finally {
      await receiver.close();
    }
    expect((await post()).error).to.equal('ECONNREFUSED');
  });
});
