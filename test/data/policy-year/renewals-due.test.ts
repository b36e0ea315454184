import { expect } from 'chai';
import { loadConfig } from '../../../config/index.js';
import { listPoliciesDueForRenewal } from '../../../data/policy-year/renewals.js';
import { SystemScope } from '../../../data/scope.js';
import { DEFAULT_RENEWAL_LEAD_DAYS, opensOn } from '../../../domain/policy-year/renewal.js';
import { makeClient, makePolicy, sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';

/** A term end no other test's policy has: what the query finds in its window is this file's alone. */
const END = '2033-06-30';

describe('policies due for renewal at a RENEWAL_LEAD_DAYS other than the default (D17)', () => {
  const system = () => SystemScope.of(stack().serviceOrm.em.fork());
  let policies: { due: string; renewedAlready: string; inactive: string };

  before(async () => {
    const client = await makeClient();
    const term = { startDate: '2032-07-01', endDate: END };
    policies = {
      due: (await makePolicy(client.clientId, term)).id,
      renewedAlready: (await makePolicy(client.clientId, term)).id,
      inactive: (await makePolicy(client.clientId, { ...term, status: 'POLICY_STATUS_INACTIVE' })).id,
    };
    // A policy renewing the second one exists already: its window has nothing left to open.
    const next = await makePolicy(client.clientId, { startDate: '2033-07-01', endDate: '2034-06-30' });
    await sql('update policies set renewed_from = ? where id = ?', [policies.renewedAlready, next.id]);
  });

  /** This file's policies the daily pass would open on `today` with `leadDays`. */
  const dueOn = async (today: string, leadDays: number) =>
    (await listPoliciesDueForRenewal(system(), today, leadDays))
      .filter((p) => Object.values(policies).includes(p.id))
      .map((p) => [p.id, p.end_date]);

  it('with RENEWAL_LEAD_DAYS=30: not due 31 days before the end, due 30 days before and up to the last day', async () => {
    const lead = loadConfig({ RENEWAL_LEAD_DAYS: '30' }).RENEWAL_LEAD_DAYS;
    expect(lead).to.equal(30);
    expect(opensOn(END, lead)).to.equal('2033-05-31');

    expect(await dueOn('2033-05-30', lead), '31 days before the end').to.deep.equal([]);
    expect(await dueOn('2033-05-31', lead), '30 days before the end').to.deep.equal([[policies.due, END]]);
    expect(await dueOn(END, lead), 'the last day of the term').to.deep.equal([[policies.due, END]]);
    expect(await dueOn('2033-07-01', lead), 'the day after the end').to.deep.equal([]);
  });

  it('the same day is due at the default lead of 90: the setting, not a constant, decides', async () => {
    expect(loadConfig({}).RENEWAL_LEAD_DAYS).to.equal(DEFAULT_RENEWAL_LEAD_DAYS);
    expect(await dueOn('2033-05-30', DEFAULT_RENEWAL_LEAD_DAYS)).to.deep.equal([[policies.due, END]]);
    expect(await dueOn('2033-04-01', DEFAULT_RENEWAL_LEAD_DAYS)).to.deep.equal([[policies.due, END]]);
    expect(await dueOn('2033-03-31', DEFAULT_RENEWAL_LEAD_DAYS), '91 days before the end').to.deep.equal([]);
  });
});
