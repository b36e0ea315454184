import type { Server } from 'node:http';
import { expect } from 'chai';
import { stack } from '../support/stack.js';
import { createEndorsement, makeWorld, waitForStatus } from '../workflows/endorsement-support.js';
import { openBrowser, type Browser } from './chromium.js';
import { startCodecServer, textShowing, useCodecEndpoint } from './codec.js';

/**
 * An operator opens an endorsement in the Temporal Web UI: through the codec server its input reads as
 * the ids it carries; without it the UI only has the encrypted bytes. The UI learns its codec endpoint
 * from its settings (`--ui-codec-endpoint`, as `npm start` sets it); here the settings answer is given
 * the endpoint or not, on the same dev server.
 */
describe('Temporal Web UI with and without the codec server', function () {
  this.timeout(120_000);
  let browser: Browser;
  let codecServer: Server;
  let codecEndpoint: string;
  let workflowUrl: string;
  let employeeId: string;

  before(async () => {
    const { temporalUiUrl, config } = stack();
    if (!temporalUiUrl)
      throw new Error('the browser test needs the stack to run its own Temporal dev server');
    ({ server: codecServer, endpoint: codecEndpoint } = await startCodecServer());
    const world = await makeWorld({ adapter: 'manual' });
    employeeId = world.employee.id;
    const id = await createEndorsement(world);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const { runId } = await stack().temporal.workflow.getHandle(`endorsement-${id}`).describe();
    workflowUrl = `${temporalUiUrl}/namespaces/${config.TEMPORAL_NAMESPACE}/workflows/endorsement-${id}/${runId}`;
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    codecServer?.close();
  });

  /** The workflow's page with the UI given this codec endpoint; its text once `shown` is on screen. */
  async function openInput(endpoint: string, shown: string): Promise<string> {
    const { page } = browser;
    const undo = await useCodecEndpoint(page, endpoint);
    try {
      await page.goto(workflowUrl);
      return await textShowing(page, [shown]);
    } finally {
      await undo();
    }
  }

  it('shows the decoded endorsement input through the codec server', async () => {
    const text = await openInput(codecEndpoint, '"endorsementId"');
    await browser.screenshot('temporal-input-decoded');
    expect(text).to.contain(employeeId);
    expect(text).to.contain('endorsementId');
  });

  it('shows only encrypted bytes without it', async () => {
    const text = await openInput('', '"encryption-key-id"');
    await browser.screenshot('temporal-input-encrypted');
    expect(text).to.not.contain(employeeId);
    expect(text).to.contain(`"encoding": "${Buffer.from('binary/encrypted').toString('base64')}"`);
    expect(text).to.not.contain('"endorsementId"');
  });
});
