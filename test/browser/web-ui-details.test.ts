import type { Server } from 'node:http';
import { expect } from 'chai';
import { findStuckEndorsements } from '../../admin/stuck.js';
import { workflowUiUrl } from '../../config/index.js';
import { InsurerScope } from '../../data/insurer-exchange/scope.js';
import { submitInsurerDecisions } from '../../usecases/insurer-exchange/decisions.js';
import { sql } from '../support/factories.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  endorsementApi,
  makeWorld,
  waitFor,
  workflowHandle,
  workflowState,
  type World,
} from '../workflows/endorsement-support.js';
import { DOCS_SCREENSHOTS, openBrowser, type Browser } from './chromium.js';
import { startCodecServer, textShowing, useCodecEndpoint } from './codec.js';

/** The list columns the operators' guide recommends: the search attributes that say why. */
const OPERATOR_COLUMNS = [
  'Workflow ID',
  'EndorsementStatus',
  'EndorsementStuck',
  'EndorsementSlaBreached',
  'SubmittedAt',
  'SlaDueAt',
  'InsurerId',
];

/**
 * The operators' view of a stuck endorsement (issue 22): the Web UI's list shows each workflow's
 * summary (type, id, policy number, insurer and employee codes), its page the current details (what
 * it waits for, since when, stuck and SLA times, what the insurer said, what to do), without opening
 * the history. The link comes from `ops stuck`; the screenshots are the operators' guide's.
 */
describe('Temporal Web UI: summaries and current details of a stuck endorsement', function () {
  this.timeout(180_000);
  let browser: Browser;
  let codecServer: Server;
  let undoCodec: () => Promise<void>;
  let world: World;
  let id: string;
  let fundsWorld: World;
  let fundsId: string;
  let insurerCode: string;
  let insurerId: string;
  let ui: string;

  const listUrl = (query: string) => `${ui}/workflows?query=${encodeURIComponent(query)}`;

  before(async () => {
    const { temporalUiUrl, config } = stack();
    if (!temporalUiUrl)
      throw new Error('the browser test needs the stack to run its own Temporal dev server');
    ui = `${temporalUiUrl}/namespaces/${config.TEMPORAL_NAMESPACE}`;
    let endpoint: string;
    ({ server: codecServer, endpoint } = await startCodecServer());
    // Stuck after 2 s, past its SLA after 4 s: both waits an operator sees, in seconds.
    const api = await endorsementApi({
      config: { ...config, ENDORSEMENT_STUCK_AFTER: '2s', INSURER_SLA_DEFAULT: '4s' },
    });
    world = await makeWorld({ adapter: 'manual', api });
    [{ code: insurerCode, id: insurerId }] = await sql(
      'select i.id, i.code from insurers i join policies p on p.insurer_id = i.id where p.id = ?',
      [world.policy.id],
    );
    id = await createEndorsement(world);
    // Another client's addition that its policy's CD balance does not cover: it waits for funds.
    fundsWorld = await makeWorld({ adapter: 'manual', api, policy: { cdBalance: '100.00' } });
    fundsId = await createEndorsement(fundsWorld);
    await waitFor(
      () => workflowState(id),
      (s) => s.stuck,
      'the stuck flag',
    );
    await waitFor(
      async () =>
        (
          await stack().temporal.workflow.count(
            `EndorsementSlaBreached = true AND ClientId = '${world.client.clientId}'`,
          )
        ).count,
      (n) => n === 1,
      'visibility to list the endorsement as stuck and past its SLA',
    );
    await waitFor(
      async () =>
        (
          await stack().temporal.workflow.count(
            `AwaitingFunds = true AND ClientId = '${fundsWorld.client.clientId}'`,
          )
        ).count,
      (n) => n === 1,
      'visibility to list the endorsement waiting for funds',
    );
    browser = await openBrowser();
    undoCodec = await useCodecEndpoint(browser.page, endpoint);
  });
  after(async () => {
    await undoCodec?.();
    await browser?.close();
    codecServer?.close();
  });

  const summary = () =>
    `ADDITION ${id} · policy ${world.policy.policyNumber} · insurer ${insurerCode} · employee ${world.employee.employeeCode}`;
  const mine = () => `ClientId = '${world.client.clientId}'`;

  /** The saved queries of the operators' guide (docs/operators/README.md), each with its screenshot. */
  const savedQueries = () => [
    {
      name: 'stuck',
      query: `WorkflowType = 'endorsementWorkflow' AND ExecutionStatus = 'Running' AND EndorsementStuck = true AND ${mine()}`,
      lists: `endorsement-${id}`,
    },
    {
      name: 'sla-breached',
      query: `EndorsementSlaBreached = true AND ExecutionStatus = 'Running' AND ${mine()}`,
      lists: `endorsement-${id}`,
    },
    {
      name: 'insurer-backlog',
      query: `InsurerId = '${insurerId}' AND EndorsementStatus = 'ENDORSEMENT_STATUS_SENT_TO_INSURER' AND SubmittedAt < '${new Date().toISOString()}'`,
      lists: `endorsement-${id}`,
    },
    {
      name: 'awaiting-funds',
      query: `AwaitingFunds = true AND ExecutionStatus = 'Running' AND ClientId = '${fundsWorld.client.clientId}'`,
      lists: `endorsement-${fundsId}`,
    },
  ];

  it("lists the stuck endorsement with the operators' columns under each saved query", async () => {
    const { page } = browser;
    // The UI keeps its list columns per namespace in localStorage (what "Configure columns" saves).
    const columns = JSON.stringify({
      [stack().config.TEMPORAL_NAMESPACE]: OPERATOR_COLUMNS.map((label) => ({ label })),
    });
    await page.setViewportSize({ width: 2000, height: 700 });
    await page.addInitScript(
      `localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(columns)})`,
    );
    for (const saved of savedQueries()) {
      await page.goto(listUrl(saved.query));
      const expected = [saved.lists, 'EndorsementStuck', 'SlaDueAt'];
      const text = await textShowing(page, expected);
      for (const e of expected) expect(text, saved.name).to.contain(e);
      await browser.screenshot(`web-ui-query-${saved.name}`, DOCS_SCREENSHOTS);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  /** The workflow page's User Metadata tab: summary, static details, current details. */
  async function userMetadata(url: string | null, shown: string[]): Promise<string> {
    const { page } = browser;
    if (url) await page.goto(url);
    else await page.reload();
    await page.getByText('User Metadata', { exact: true }).first().click();
    return textShowing(page, shown);
  }

  it('opens from the ops stuck link to the workflow page, whose details say why it is stuck', async () => {
    const rows = await findStuckEndorsements(stack().temporal, stack().orm.em.fork(), {
      clientId: world.client.clientId,
      now: new Date(),
      webUi: (workflowId) =>
        workflowUiUrl({ ...stack().config, TEMPORAL_UI_URL: stack().temporalUiUrl! }, workflowId),
    });
    expect(rows.map((r) => r.endorsement_id)).to.deep.equal([id]);
    const shown = [
      summary(),
      `waiting for: the decision of insurer ${insurerCode}`,
      'STUCK',
      'stuck since:',
      'SLA breached at:',
      'insurer last said: submission received',
      `npm run -s ops -- cancel ${id}`,
      `npm run -s insurer -- approve ${id}`,
      // The static details: how to reach it from the API.
      `GET /v1/policy/endorsements/${id}`,
      // The timeline's summaries.
      'stuck after 2 s without a decision',
      `submit to insurer ${insurerCode} (manual adapter): ${id}`,
    ];
    const text = await userMetadata(rows[0]!.web_ui, shown);
    for (const s of shown) expect(text).to.contain(s);
    // The current details render in a frame of their own, which the UI sizes a line short of its
    // content: every command an operator can run must lie within what it shows.
    const details = browser.page.frames().find((f) => f.url().includes('/render?content=**ADDITION'));
    expect(details, 'the current details frame').to.not.equal(undefined);
    const cut = await details!.evaluate(
      `Array.from(document.querySelectorAll('code'))
         .filter(function (c) { return c.textContent.indexOf('npm run') === 0; })
         .filter(function (c) { return c.getBoundingClientRect().bottom > window.innerHeight; })
         .map(function (c) { return c.textContent; })`,
    );
    expect(cut, 'commands below the frame').to.deep.equal([]);
    await browser.screenshot('web-ui-stuck-endorsement', DOCS_SCREENSHOTS);
  });

  it('shows new details once the insurer decides, and drops it from the stuck list once recorded', async () => {
    // The approval's insert fails until the trigger is dropped: the workflow stays open, decided.
    await sql(`create or replace function ui_hold() returns trigger language plpgsql as $$
                 begin if new.employee_id = '${world.employee.id}' then raise exception 'held'; end if; return new; end $$;
               create trigger ui_hold before insert on policy_members for each row execute function ui_hold()`);
    try {
      // As the insurer sends it: through the decisions API's use case, which names itself as the source.
      const [answer] = await submitInsurerDecisions(
        stack(),
        InsurerScope.of(stack().serviceOrm.em, insurerId),
        [{ endorsementId: id, decision: { decision: 'APPROVED', uhid: 'UH-UI-1' } }],
      );
      expect(answer).to.include({ result: 'accepted' });
      const shown = [
        'insurer last said: APPROVED (POST /v1/insurer/decisions)',
        'waiting for: the database to record the decision',
        'look at the failing activity under Pending Activities',
      ];
      const text = await userMetadata(null, shown);
      for (const s of shown) expect(text).to.contain(s);
      expect(text).to.not.contain('STUCK');
      await browser.screenshot('web-ui-decided-endorsement', DOCS_SCREENSHOTS);
    } finally {
      await sql('drop trigger if exists ui_hold on policy_members');
    }
    expect(await workflowHandle(id).result()).to.include({ status: 'ENDORSEMENT_STATUS_APPROVED' });
    const { page } = browser;
    await page.goto(listUrl(savedQueries()[0]!.query));
    const text = await textShowing(page, ['There are no results']);
    expect(text).to.not.contain(`endorsement-${id}`);
  });
});
