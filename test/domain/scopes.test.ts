import { expect } from 'chai';
import { hasAnyScope, normaliseScope, SCOPES } from '../../domain/scopes.js';

describe('scope names (D2)', () => {
  it('treats case and `_`/`.` as equivalent for every scope', () => {
    for (const scope of SCOPES) {
      expect(normaliseScope(scope)).to.equal(scope);
      expect(normaliseScope(scope.toUpperCase().replace(/\./g, '_'))).to.equal(scope);
      expect(normaliseScope(` ${scope.toUpperCase()} `)).to.equal(scope);
    }
    expect(normaliseScope('POLICY_MEMBERS_LIST')).to.equal('policy.members.list');
    expect(normaliseScope('policy_members.LIST')).to.equal('policy.members.list');
    expect(normaliseScope('POLICY_ENDORSEMENTS')).to.equal('policy.endorsements');
  });

  it('knows no other names', () => {
    for (const name of ['', 'policy', 'policy.delete', 'employee-get', 'employee..get', 'EMPLOYEEGET', '*']) {
      expect(normaliseScope(name), name).to.equal(null);
    }
  });

  it('admits a token holding any one of the accepted scopes and nothing else', () => {
    expect(hasAnyScope(['employee.get', 'policy.all'], ['policy.get', 'policy.all'])).to.equal(true);
    expect(hasAnyScope(['policy.get'], ['policy.get', 'policy.all'])).to.equal(true);
    expect(hasAnyScope(['policy.list', 'employee.all'], ['policy.get', 'policy.all'])).to.equal(false);
    expect(hasAnyScope([], ['policy.get'])).to.equal(false);
  });
});
