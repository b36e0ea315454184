import { expect } from 'chai';
import {
  census,
  censusCsv,
  CSV,
  newJoiner,
  postUncoveredAddition,
  type Census,
  type CensusRowIn,
} from '../support/census.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { waitFor } from '../workflows/endorsement-support.js';
import type { ClientScope } from '../../domain/scopes.js';
import { tokenService } from './auth-fixtures.js';
import { makeEmployee } from '../support/factories.js';

const PATH = '/v1/policy/endorsements/batches';

/** A token of the census's client holding exactly these scopes. */
const tokenOf = (w: Census, scopes: ClientScope[]) => tokenService().issue(w.clientId, scopes, 1);

describe('census batches under policy.endorsements (the requirement’s scope, beside D2’s policy.all)', () => {
  checkCdLedgersAfterEachTest();

  let w: Census;
  let rows: CensusRowIn[];

  beforeEach(async () => {
    w = await census();
    rows = [
      newJoiner(`S1-${w.clientId.slice(-6)}`),
      { employee_code: w.uncovered.employeeCode, action: 'add', effective_date: '2026-12-01' },
    ];
  });

  const upload = (token: string, query = '') =>
    w.api.post(`${PATH}${query}`, { token, rawBody: censusCsv(rows), headers: { 'content-type': CSV } });

  it('an HR integrator (policy.endorsements, employee.create) checks, commits and follows a census', async () => {
    const token = tokenOf(w, ['policy.endorsements', 'employee.create']);
    const dry = await upload(token, '?dry_run=true');
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body.payload.rows.map((r: any) => r.status)).to.deep.equal(['ok', 'ok']);
    const res = await upload(token);
    expect(res.status, res.text).to.equal(202);
    const done = await waitFor(
      () => w.api.get(`${PATH}/${res.body.payload.batch_id}`, { token }),
      (r) => r.body.payload?.batch.status === 'BATCH_STATUS_COMPLETED',
      'the batch to complete',
    );
    expect(done.body.payload.batch.counts).to.deep.equal({ pending: 0, applied: 2, failed: 0, invalid: 0 });
    expect((await w.api.get(`${PATH}/template.csv`, { token })).status).to.equal(200);
    expect((await w.api.get(`${PATH}/template.xlsx`, { token })).status).to.equal(200);
    // The endorsements it created read with the same token; the policies themselves do not.
    const endorsementId = done.body.payload.rows[1].endorsement_id;
    const endorsement = await w.api.get(`/v1/policy/endorsements/${endorsementId}`, { token });
    expect(endorsement.status, endorsement.text).to.equal(200);
    const policy = await w.api.get(`/v1/policy/${w.policyId}`, { token });
    expect(policy.status).to.equal(403);
    expect(policy.body).to.include({
      title: 'Insufficient Scope',
      detail: 'requires one of: policy.get, policy.all',
    });
  });

  it('creates a single endorsement with policy.endorsements alone', async () => {
    const token = tokenOf(w, ['policy.endorsements']);
    const res = await postUncoveredAddition(w, token);
    expect(res.status, res.text).to.equal(200);
    const read = await w.api.get(`/v1/policy/endorsements/${res.body.payload.endorsement_id}`, { token });
    expect(read.status).to.equal(200);
  });

  it('still needs employee.create for rows that create employees, and policy.all still commits', async () => {
    const refused = await upload(tokenOf(w, ['policy.endorsements']));
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({
      title: 'Insufficient Scope',
      detail: 'requires one of: employee.create, employee.all',
    });
    const dry = await upload(tokenOf(w, ['policy.endorsements']), '?dry_run=true');
    expect(dry.status).to.equal(200);
    const d2Token = tokenOf(w, ['policy.all', 'employee.create']);
    const d2 = await upload(d2Token);
    expect(d2.status, d2.text).to.equal(202);
    await waitFor(
      () => w.api.get(`${PATH}/${d2.body.payload.batch_id}`, { token: d2Token }),
      (r) => r.body.payload?.batch.status === 'BATCH_STATUS_COMPLETED',
      'the batch to complete',
    );
  });

  it('a dry run shows CD figures, cover and other employees only to a token that reads them', async () => {
    const other = await makeEmployee(w.clientId);
    rows = [
      // An exit of the covered employee: its DELETIONs name the policies they are covered on.
      { employee_code: w.covered.employeeCode, action: 'delete', effective_date: '2026-12-31' },
      // The uncovered employee's delete: refused because they are covered nowhere.
      {
        employee_code: w.uncovered.employeeCode,
        action: 'delete',
        effective_date: '2026-12-31',
        policy_id: w.policyId,
      },
      // Another employee's official e-mail: refused because someone holds it.
      {
        employee_code: other.employeeCode,
        action: 'add',
        effective_date: '2026-12-01',
        email: w.covered.email,
      },
    ];
    const narrow = await upload(tokenOf(w, ['policy.endorsements']), '?dry_run=true');
    expect(narrow.status, narrow.text).to.equal(200);
    const [exit, uncovered, clash] = narrow.body.payload.rows;
    expect(exit).to.deep.include({ status: 'ok', endorsement: null, errors: [] });
    expect(exit.exit).to.deep.equal({ date_of_leaving: '2026-12-31', mode: 'automatic', deletions: [] });
    expect(uncovered).to.deep.include({
      status: 'error',
      errors: [
        {
          field: 'row',
          reason: 'would be refused; the reason needs one of: policy.get, policy.members.list, policy.all',
        },
      ],
    });
    expect(clash).to.deep.include({
      status: 'error',
      errors: [
        { field: 'row', reason: 'would be refused; the reason needs one of: employee.get, employee.all' },
      ],
    });
    expect(narrow.body.payload.totals.cd).to.equal(null);
    expect(JSON.stringify(narrow.body)).not.to.contain(w.policyId);

    // The same census under scopes that read the CD account, the cover and the employees: all of it.
    const full = await upload(
      tokenOf(w, ['policy.endorsements', 'policy.get', 'employee.get']),
      '?dry_run=true',
    );
    const [fullExit, fullUncovered, fullClash] = full.body.payload.rows;
    expect(fullExit.exit.deletions.map((d: any) => d.policy_id)).to.deep.equal([w.policyId]);
    expect(fullUncovered.errors).to.deep.equal([
      { field: 'row', reason: 'the employee is not covered by this policy' },
    ]);
    expect(fullClash.errors).to.deep.equal([
      { field: 'email', reason: 'is already the official e-mail of another employee' },
    ]);
    expect(full.body.payload.totals.cd).to.have.length(1);
    expect(full.body.payload.totals.cd[0]).to.include({ policy_id: w.policyId });
    expect(full.body.payload.totals.cd[0].available).to.be.a('number');
  });

  it('prices each row with its CD forecast (D17), the forecast only for a token that reads the CD account', async () => {
    rows = [newJoiner(`P1-${w.clientId.slice(-6)}`)];
    const narrow = await upload(tokenOf(w, ['policy.endorsements']), '?dry_run=true');
    const priced = narrow.body.payload.rows[0].endorsement;
    // ₹3,650 a year at the 300000 slab over 365 days: 121 days from 2026-12-01 to 2027-03-31.
    expect(priced).to.include({ premium_impact: 1210, pro_rata_days: 121, cd: null });
    const full = await upload(tokenOf(w, ['policy.endorsements', 'policy.get']), '?dry_run=true');
    expect(full.body.payload.rows[0].endorsement.cd).to.deep.equal({
      hold: 1210,
      available_after: 998790,
      waits_for_funds: false,
    });
    expect(full.body.payload.totals.cd[0]).to.include({
      available: 1000000,
      available_after: 998790,
      waiting: 0,
    });
  });

  it('refuses a batch to a token without an endorsement scope (403 naming them)', async () => {
    const res = await w.api.post(PATH, {
      token: tokenOf(w, ['policy.get', 'employee.all']),
      rawBody: censusCsv(rows),
      headers: { 'content-type': CSV },
    });
    expect(res.status).to.equal(403);
    expect(res.body).to.include({ detail: 'requires one of: policy.endorsements, policy.all' });
  });
});
