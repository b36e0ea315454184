import { expect } from 'chai';
import { addWebhook } from '../../usecases/webhooks/endpoints.js';
import { claimIdempotencyKey, readIdempotencyRecord, storeIdempotentAnswer } from '../../data/idempotency.js';
import { MissingTenant, TenantScope } from '../../data/scope.js';
import { listActiveEndpoints } from '../../data/webhooks/webhooks.js';
import { makeClient } from '../support/factories.js';
import { stack } from '../support/stack.js';

const publicAddress = async () => ['93.184.216.34'];

describe('data: webhook endpoints and idempotency records are scoped to one client', () => {
  it('a scope cannot be made without a well-formed client id', () => {
    expect(() => TenantScope.of(stack().orm.em, undefined)).to.throw(MissingTenant);
    expect(() => TenantScope.of(stack().orm.em, "x' or '1'='1")).to.throw(MissingTenant);
  });

  it("a client's scope lists its own endpoints and never another client's", async () => {
    const [a, b] = [await makeClient(), await makeClient()];
    const cfg = stack().config;
    const em = stack().serviceOrm.em;
    const added = await addWebhook(
      em,
      cfg,
      { clientId: a.clientId, url: 'https://a.example/hooks' },
      publicAddress,
    );
    await addWebhook(em, cfg, { clientId: b.clientId, url: 'https://b.example/hooks' }, publicAddress);

    const ofA = await listActiveEndpoints(TenantScope.of(em, a.clientId));
    expect(ofA.map((w) => [w.id, w.url])).to.deep.equal([[added.webhook_id, 'https://a.example/hooks']]);
    const ofB = await listActiveEndpoints(TenantScope.of(em, b.clientId));
    expect(ofB.map((w) => w.url)).to.deep.equal(['https://b.example/hooks']);
  });

  it('the same Idempotency-Key of two clients names two records, each seen only by its client', async () => {
    const [a, b] = [await makeClient(), await makeClient()];
    const em = stack().serviceOrm.em;
    const id = { route: 'POST /v1/policy/endorsements', key: 'same-key' };
    const now = new Date();
    const at = { now, expiredBefore: new Date(0), abandonedBefore: new Date(0) };
    const scopeA = TenantScope.of(em, a.clientId);
    const scopeB = TenantScope.of(em, b.clientId);

    expect(await claimIdempotencyKey(scopeA, id, 'hash-a', at)).to.equal(true);
    expect(await claimIdempotencyKey(scopeA, id, 'hash-a', at)).to.equal(false);
    expect(await readIdempotencyRecord(scopeB, id)).to.equal(undefined);
    expect(await claimIdempotencyKey(scopeB, id, 'hash-b', at)).to.equal(true);

    await storeIdempotentAnswer(scopeA, id, { answer: 'a' });
    expect(await readIdempotencyRecord(scopeA, id)).to.deep.equal({
      requestHash: 'hash-a',
      responseStatus: 200,
      responseBody: { answer: 'a' },
    });
    expect(await readIdempotencyRecord(scopeB, id)).to.deep.include({
      requestHash: 'hash-b',
      responseStatus: null,
    });
  });
});
