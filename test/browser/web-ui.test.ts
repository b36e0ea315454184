import { expect } from 'chai';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  makeWorld,
  waitFor,
  waitForStatus,
  type World,
} from '../workflows/endorsement-support.js';
import { openBrowser, type Browser } from './chromium.js';

/** The operators' view (D7): the Temporal Web UI of this run's dev server, in a real browser. */
describe('Temporal Web UI in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let world: World;
  let endorsementId: string;
  let ui: string;

  before(async () => {
    const url = stack().temporalUiUrl;
    if (!url)
      throw new Error(
        'the browser test needs the stack to run its own Temporal dev server (unset TEMPORAL_ADDRESS)',
      );
    ui = `${url}/namespaces/${stack().config.TEMPORAL_NAMESPACE}`;
    world = await makeWorld({ adapter: 'manual' });
    endorsementId = await createEndorsement(world);
    await waitForStatus(endorsementId, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    // The UI reads visibility, which trails the workflow's own search attribute updates a little.
    const query = `ClientId = '${world.client.clientId}' AND EndorsementStatus = 'ENDORSEMENT_STATUS_SENT_TO_INSURER'`;
    await waitFor(
      async () => (await stack().temporal.workflow.count(query)).count,
      (n) => n === 1,
      'visibility to list the endorsement as SENT_TO_INSURER',
    );
    browser = await openBrowser();
  });
  after(() => browser?.close());

  const listUrl = (status: string) =>
    `${ui}/workflows?query=${encodeURIComponent(
      `EndorsementStatus="${status}" AND ClientId="${world.client.clientId}"`,
    )}`;

  it('lists the endorsement workflow when filtered by EndorsementStatus, and not under another status', async () => {
    const { page } = browser;
    const workflowId = `endorsement-${endorsementId}`;
    await page.goto(listUrl('ENDORSEMENT_STATUS_SENT_TO_INSURER'));
    const link = page.getByRole('link', { name: workflowId });
    await link.first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.getByRole('link', { name: /^endorsement-/ }).count()).to.equal(1);
    expect(await page.innerText('body')).to.contain('EndorsementStatus');
    await browser.screenshot('temporal-workflows-by-endorsement-status');

    await page.goto(listUrl('ENDORSEMENT_STATUS_APPROVED'));
    await page
      .getByText('There are no results for the applied filters.')
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.getByRole('link', { name: workflowId }).count()).to.equal(0);
  });

  it("shows the workflow's search attributes: status, type, client, policy, employee, stuck flag", async () => {
    const { page } = browser;
    await page.goto(listUrl('ENDORSEMENT_STATUS_SENT_TO_INSURER'));
    await page
      .getByRole('link', { name: `endorsement-${endorsementId}` })
      .first()
      .click();
    await page.getByText('Search Attributes', { exact: true }).first().click();
    const panel = page.getByText('"EndorsementStatus"').first();
    await panel.waitFor({ state: 'visible', timeout: 30_000 });
    const text = await page.innerText('body');
    expect(text).to.contain('"EndorsementStatus": "ENDORSEMENT_STATUS_SENT_TO_INSURER"');
    expect(text).to.contain('"EndorsementType": "ENDORSEMENT_TYPE_ADDITION"');
    expect(text).to.contain(`"ClientId": "${world.client.clientId}"`);
    expect(text).to.contain(`"PolicyId": "${world.policy.id}"`);
    expect(text).to.contain(`"EmployeeId": "${world.employee.id}"`);
    expect(text).to.contain('"EndorsementStuck": false');
    await browser.screenshot('temporal-workflow-search-attributes');
  });
});
