import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createApiAdapter } from '../../adapters/api-insurer/adapter.js';
import type { RenewalSubmission } from '../../domain/policy-year/renewal-submission.js';
import { startInsurerServer } from '../support/insurer-server.js';

const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;
const SECRET_ENV = 'ACME_SIGNING_SECRET';

describe('api insurer adapter: renewals (D17)', () => {
  it('sends a confirmed renewal as one signed POST to <base_url>/renewals, keyed by the renewal id', async () => {
    const insurer = await startInsurerServer(SECRET);
    try {
      const adapter = createApiAdapter({ secret: (name) => (name === SECRET_ENV ? SECRET : undefined) });
      const renewal: RenewalSubmission = {
        adapter: 'api',
        adapterSettings: {
          base_url: insurer.url,
          signing_secret_env: SECRET_ENV,
          timeout_ms: 2_000,
          sla_days: 14,
        },
        renewalId: 'rnw_apitest',
        clientId: 'cli_1',
        policyId: 'pol_1',
        policyNumber: 'ACME/GH/2026/1',
        insurerCode: 'ACME',
        termStart: '2027-04-01',
        termEnd: '2028-03-31',
        slabs: [{ sum_insured: '300000.00', annual_premium: '4000.00' }],
        premium: '4000.00',
        carried: [
          {
            reference: 'mem_1',
            employeeCode: 'E-100',
            relationship: 'SELF',
            uhid: 'UHID-1',
            insurerMemberId: 'IM-1',
            sumInsured: '300000.00',
          },
        ],
        dropped: [
          {
            reference: 'mem_2',
            employeeCode: 'E-100',
            relationship: 'CHILD',
            uhid: 'UHID-2',
            insurerMemberId: null,
            reason: 'CHILD_AGED_OUT',
          },
        ],
      };
      await adapter.submitRenewal!(renewal);
      expect(insurer.calls).to.have.length(1);
      const call = insurer.calls[0]!;
      expect(call).to.include({
        method: 'POST',
        path: '/insurer-api/renewals',
        idempotencyKey: 'rnw_apitest',
        verified: true,
      });
      expect(call.body).to.deep.equal({
        id: 'rnw_apitest',
        kind: 'renewal',
        policy_number: 'ACME/GH/2026/1',
        term_start: '2027-04-01',
        term_end: '2028-03-31',
        slabs: [{ sum_insured: '300000.00', annual_premium: '4000.00' }],
        premium: '4000.00',
        carried: [
          {
            reference: 'mem_1',
            employee_id: 'E-100',
            relationship: 'SELF',
            uhid: 'UHID-1',
            insurer_member_id: 'IM-1',
            sum_insured: '300000.00',
          },
        ],
        dropped: [
          {
            reference: 'mem_2',
            employee_id: 'E-100',
            relationship: 'CHILD',
            uhid: 'UHID-2',
            insurer_member_id: null,
            reason: 'CHILD_AGED_OUT',
          },
        ],
      });
    } finally {
      await insurer.close();
    }
  });
});
