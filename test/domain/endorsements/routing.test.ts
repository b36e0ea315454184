import { expect } from 'chai';
import { routeEndorsement, type RoutablePolicy } from '../../../domain/endorsements/routing.js';

const policy = (o: Partial<RoutablePolicy> & { id: string }): RoutablePolicy => ({
  policyNumber: `POL-${o.id}`,
  status: 'POLICY_STATUS_ACTIVE',
  startDate: '2026-04-01',
  endDate: '2027-03-31',
  employeeActive: false,
  ...o,
});

describe('endorsement routing (D7)', () => {
  describe('ADDITION', () => {
    const add = (policies: RoutablePolicy[], start = '2026-06-01') =>
      routeEndorsement('ENDORSEMENT_TYPE_ADDITION', start, policies);

    it('takes the earliest-starting active policy whose period holds the coverage start', () => {
      const result = add([
        policy({ id: 'b', startDate: '2026-05-01' }),
        policy({ id: 'a', startDate: '2026-04-01' }),
        policy({ id: 'c', startDate: '2026-07-01' }),
      ]);
      expect(result).to.deep.equal({ ok: true, policyId: 'a' });
    });

    it('breaks a start_date tie by policy_number', () => {
      const result = add([
        policy({ id: 'x', policyNumber: 'P-2' }),
        policy({ id: 'y', policyNumber: 'P-1' }),
      ]);
      expect(result).to.deep.equal({ ok: true, policyId: 'y' });
    });

    it('skips policies the employee is already active on, inactive ones and ones not covering the start', () => {
      const result = add([
        policy({ id: 'covered', startDate: '2026-01-01', employeeActive: true }),
        policy({ id: 'inactive', startDate: '2026-02-01', status: 'POLICY_STATUS_INACTIVE' }),
        policy({ id: 'later', startDate: '2026-07-01', endDate: '2027-06-30' }),
        policy({ id: 'ended', startDate: '2025-04-01', endDate: '2026-03-31' }),
        policy({ id: 'chosen', startDate: '2026-05-01' }),
      ]);
      expect(result).to.deep.equal({ ok: true, policyId: 'chosen' });
    });

    it('includes both ends of the policy period', () => {
      expect(add([policy({ id: 'a' })], '2026-04-01')).to.deep.equal({ ok: true, policyId: 'a' });
      expect(add([policy({ id: 'a' })], '2027-03-31')).to.deep.equal({ ok: true, policyId: 'a' });
      expect(add([policy({ id: 'a' })], '2027-04-01')).to.deep.equal({ ok: false, reason: 'NO_POLICY' });
    });
  });

  describe('DELETION and MODIFICATION', () => {
    for (const type of ['ENDORSEMENT_TYPE_DELETION', 'ENDORSEMENT_TYPE_MODIFICATION'] as const) {
      it(`${type}: the one active policy the employee is on`, () => {
        const result = routeEndorsement(type, '2026-06-01', [
          policy({ id: 'a' }),
          policy({ id: 'b', employeeActive: true }),
          policy({ id: 'c', employeeActive: true, status: 'POLICY_STATUS_SUSPENDED' }),
        ]);
        expect(result).to.deep.equal({ ok: true, policyId: 'b' });
      });

      it(`${type}: several is ambiguous, none is no policy`, () => {
        expect(
          routeEndorsement(type, '2026-06-01', [
            policy({ id: 'b', employeeActive: true }),
            policy({ id: 'a', employeeActive: true }),
          ]),
        ).to.deep.equal({ ok: false, reason: 'SEVERAL_POLICIES', policyIds: ['a', 'b'] });
        expect(routeEndorsement(type, '2026-06-01', [policy({ id: 'a' })])).to.deep.equal({
          ok: false,
          reason: 'NO_POLICY',
        });
      });
    }
  });
});
