import fs from 'node:fs/promises';
import { expect } from 'chai';
import { firstEndorsement } from '../../examples/first-endorsement.js';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/generate-client.js';
import { makeClient, makePolicy, makeReferenceData } from '../support/factories.js';
import { client } from '../support/http.js';
import { stack } from '../support/stack.js';

describe('examples/: the typed client an integrator starts from', function () {
  this.timeout(120_000);
  let baseUrl: string;

  before(async () => {
    // An API of its own whose configured base URL is its address, so the health card's signed link
    // (built from BASE_URL, as in a deployment) points back at it.
    const api = await stack().startApi({ config: { ...stack().config } });
    api.deps.config.baseUrl = api.url;
    baseUrl = api.url;
  });

  it('its types are what the running API serves at /openapi.json (npm run client:generate)', async () => {
    const served = await client(baseUrl).get('/openapi.json');
    expect(served.status).to.equal(200);
    const committed = await fs.readFile(CLIENT_TYPES_FILE, 'utf8');
    expect(
      committed === (await clientTypes(served.body)),
      'examples/api-schema.ts is stale: run npm run client:generate',
    ).to.equal(true);
  });

  it('first-endorsement.ts: token, policy, employee, endorsement approved, coverage with UHID, health card', async () => {
    const c = await makeClient();
    // A simulated insurer decides within seconds, as the demo's STAR does.
    const reference = await makeReferenceData(c.clientId, { adapter: 'simulated' });
    const policy = await makePolicy(c.clientId, { reference });
    const seen = await firstEndorsement({
      baseUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      policyNumber: policy.policyNumber,
      employeeCode: `EX-${Date.now()}`,
    });
    expect(seen.policyId).to.equal(policy.id);
    expect(seen.endorsementId).to.match(/^end_/);
    expect(seen.status).to.equal('ENDORSEMENT_STATUS_APPROVED');
    expect(seen.coverage).to.have.length(1);
    expect(seen.coverage[0]).to.include({ policyId: policy.id, sumInsured: 300000 });
    expect(seen.coverage[0]!.uhid).to.be.a('string').and.have.length.greaterThan(0);
    expect(seen.healthCard.contentType).to.equal('application/pdf');
    expect(seen.healthCard.startsWithPdf).to.equal(true);
    expect(seen.healthCard.bytes).to.be.greaterThan(500);
  });
});
