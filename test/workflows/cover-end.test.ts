import { expect } from 'chai';
import { fixedClock } from '../../domain/clock.js';
import { makeDependent, makeMember, sql } from '../support/factories.js';
import { client as http } from '../support/http.js';
import { ops } from '../support/ops.js';
import { deletePeriodicSchedules, triggerPass } from '../support/schedules.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  makeWorld,
  memberRows,
  waitForStatus,
  type World,
} from './endorsement-support.js';
import { getGrant, grant, waitForEndorsements, type GrantWorld } from './grant-support.js';

/*
 * D10: a DELETION (or a grant) ends cover on its coverage_end_date, not at approval. The API's clock
 * and the worker's clock are pinned to the same business day (noon in Asia/Kolkata) and moved together.
 */
const noonIst = (day: string) => `${day}T06:30:00Z`;

describe('cover ends on its coverage_end_date (D10)', function () {
  this.timeout(60_000);
  const clock = fixedClock(noonIst('2026-10-01'));
  let apiUrl: string;

  const setToday = (day: string) => {
    clock.set(noonIst(day));
    stack().workerClock.set(noonIst(day));
  };
  const token = (w: World) => w.client.token(undefined, clock);
  const api = () => http(apiUrl);

  before(async () => {
    apiUrl = (await stack().startApi({ clock })).url;
  });
  beforeEach(() => setToday('2026-10-01'));
  after(() => stack().workerClock.reset());

  /** An employee and spouse covered for the policy year, on a policy covering E+S+C. */
  async function coveredWorld(): Promise<World & { spouseId: string }> {
    const world = await makeWorld({ api: api() });
    const { clientId } = world.client;
    const spouse = await makeDependent(clientId, world.employee.id, { relationship: 'SPOUSE' });
    await makeMember(clientId, world.policy.id, world.employee);
    await makeMember(clientId, world.policy.id, world.employee, { dependentId: spouse.id });
    return { ...world, spouseId: spouse.id };
  }

  /** Creates an endorsement with a token of the pinned clock and has the insurer approve it. */
  async function approved(world: World, body: Parameters<typeof createEndorsement>[1]): Promise<string> {
    const id = await createEndorsement({ ...world, token: token(world) }, body);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    await decide(id, { decision: 'APPROVED' });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    return id;
  }

  const deletion = (world: World, endDate: string) =>
    approved(world, { type: 'DELETION', coverage_start_date: '2026-04-01', coverage_end_date: endDate });

  const coverage = (world: World) =>
    api().get(`/v1/policy/coverage/${world.employee.id}`, { token: token(world) });

  async function members(world: World, status?: string): Promise<Record<string, any>[]> {
    const query = status ? `?status=${status}` : '';
    const res = await api().get(`/v1/policy/${world.policy.id}/members${query}`, { token: token(world) });
    expect(res.status, res.text).to.equal(200);
    return res.body.payload.members;
  }

  const endCoverAudit = (memberIds: readonly string[]) =>
    sql(
      `select entity_id from audit_events
        where entity = 'policy_member' and action = 'end_cover' and entity_id in (select jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(memberIds)],
    );

  it('keeps cover, coverage lookup and the health card until a future end date; after it the member is inactive and can be added again', async () => {
    const world = await coveredWorld();
    await deletion(world, '2026-10-15');

    const kept = await members(world);
    expect(kept).to.have.length(2);
    for (const m of kept) expect(m).to.include({ status: 'active', coverage_end_date: '2026-10-15' });

    setToday('2026-10-15');
    const covered = await coverage(world);
    expect(covered.status, covered.text).to.equal(200);
    const [entry] = covered.body.payload as { policy_id: string; pdf_url: string }[];
    expect(entry).to.include({ policy_id: world.policy.id, coverage_end_date: '2026-10-15' });
    const link = new URL(entry!.pdf_url);
    const card = await fetch(`${apiUrl}${link.pathname}${link.search}`);
    expect(card.status).to.equal(200);
    expect(card.headers.get('content-type')).to.contain('application/pdf');

    setToday('2026-10-16');
    const lapsed = await coverage(world);
    expect(lapsed.status).to.equal(404);
    expect(lapsed.body.title).to.equal('Employee Not Covered');
    const ended = await members(world);
    expect(ended.map((m) => m.status)).to.deep.equal(['inactive', 'inactive']);
    expect(await members(world, 'ACTIVE')).to.have.length(0);
    expect(await members(world, 'INACTIVE')).to.have.length(2);

    const oldIds = ended.map((m) => m.id as string);
    await approved(world, {
      type: 'ADDITION',
      coverage_start_date: '2026-10-16',
      coverage_end_date: '2027-03-31',
    });
    const rows = await members(world);
    expect(rows).to.have.length(4);
    const fresh = rows.filter((m) => !oldIds.includes(m.id));
    expect(fresh.map((m) => m.dependent_id)).to.have.members([null, world.spouseId]);
    for (const m of fresh) expect(m).to.include({ status: 'active', coverage_start_date: '2026-10-16' });
    // The approval turned the ended rows inactive in storage too, each with its audit entry.
    const stored = (await memberRows(world.policy.id)).filter((m) => m.coverage_end_date === '2026-10-15');
    expect(stored.map((m) => m.status)).to.deep.equal(['inactive', 'inactive']);
    expect(await endCoverAudit(oldIds)).to.have.length(2);
    expect((await coverage(world)).status).to.equal(200);
  });

  it('ends cover at approval when the end date has already passed', async () => {
    const world = await coveredWorld();
    setToday('2026-10-20');
    await deletion(world, '2026-10-15');
    const stored = await memberRows(world.policy.id);
    expect(stored).to.have.length(2);
    for (const m of stored) expect(m).to.include({ status: 'inactive', coverage_end_date: '2026-10-15' });
    expect((await coverage(world)).status).to.equal(404);
  });

  it('ops end-lapsed-cover turns inactive the rows whose end date has passed, once', async () => {
    const world = await coveredWorld();
    await deletion(world, '2026-10-15');
    expect((await memberRows(world.policy.id)).map((m) => m.status)).to.deep.equal(['active', 'active']);

    // The command runs on the system clock: today is after 2026-10-15.
    const first = await ops('end-lapsed-cover', '--json');
    expect(first.code, first.err).to.equal(0);
    const result = JSON.parse(first.out) as { today: string; ended: number };
    expect(result.today > '2026-10-15').to.equal(true);
    expect(result.ended).to.be.at.least(2);
    expect((await memberRows(world.policy.id)).map((m) => m.status)).to.deep.equal(['inactive', 'inactive']);
    const ids = (await members(world)).map((m) => m.id as string);
    expect(await endCoverAudit(ids)).to.have.length(2);

    const again = await ops('end-lapsed-cover', '--json');
    expect(JSON.parse(again.out)).to.include({ ended: 0 });
    expect(await endCoverAudit(ids)).to.have.length(2);
  });

  it('the daily member-cover-end Schedule runs the same pass on the worker', async () => {
    const world = await coveredWorld();
    await deletion(world, '2026-10-15');
    setToday('2026-10-16');
    const { temporal, taskQueue } = stack();
    try {
      await triggerPass(temporal, taskQueue, 'member-cover-end');
      const deadline = Date.now() + 20_000;
      let statuses = (await memberRows(world.policy.id)).map((m) => m.status);
      while (statuses.includes('active') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        statuses = (await memberRows(world.policy.id)).map((m) => m.status);
      }
      expect(statuses).to.deep.equal(['inactive', 'inactive']);
      const ids = (await members(world)).map((m) => m.id as string);
      expect(await endCoverAudit(ids)).to.have.length(2);
    } finally {
      await deletePeriodicSchedules(temporal);
    }
  });

  it("ends a grant's cover on the grant's end date", async () => {
    const world = await makeWorld({ api: api() });
    const w: GrantWorld = {
      client: world.client,
      clientId: world.client.clientId,
      token: token(world),
      api: api(),
      employee: world.employee,
      policies: { a: world.policy },
    };
    const id = await grant(w, {
      policy_id: world.policy.id,
      start_date: '2026-10-01',
      end_date: '2026-10-31',
    });
    await waitForEndorsements(w, id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 1);
    const [item] = (await getGrant(w, id)).endorsements as { endorsement_id: string }[];
    await decide(item!.endorsement_id, { decision: 'APPROVED' });
    await waitForStatus(item!.endorsement_id, 'ENDORSEMENT_STATUS_APPROVED');

    setToday('2026-10-31');
    expect((await coverage(world)).status).to.equal(200);
    expect((await members(world)).map((m) => m.status)).to.deep.equal(['active']);

    setToday('2026-11-01');
    expect((await coverage(world)).status).to.equal(404);
    const ended = await members(world);
    expect(ended).to.have.length(1);
    expect(ended[0]).to.include({ status: 'inactive', coverage_end_date: '2026-10-31' });
  });
});
