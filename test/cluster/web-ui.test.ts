import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { lowFreePort } from '../../infra/ports.js';
import { startTemporalUi, type RunningUi, type UiSettings } from '../../infra/temporal-ui.js';
import { resolveUiServer } from '../../infra/temporal-ui-server.js';
import { endorsementWorkflowId } from '../../workflows/endorsement/contract.js';
import { openBrowser, type Browser } from '../browser/chromium.js';
import { startCodecServer, textShowing } from '../browser/codec.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  makeWorld,
  waitFor,
  waitForStatus,
  type World,
} from '../workflows/endorsement-support.js';
import { runCluster } from './fault-run.js';

/**
 * The operators' view of the cluster, as `npm run cluster` starts it: the Web UI server (the release
 * docker-compose runs) dials the front door with the cluster's client certificate and sends the
 * browser to the codec server for payloads. An endorsement decided through the API and the worker
 * shows in its list and on its page; a UI without the certificate gets nothing from the cluster.
 */
describe('Temporal cluster: the Web UI over mTLS in headless Chromium', function () {
  this.timeout(180_000);
  let dir: string;
  let codecServer: Server;
  let codecEndpoint: string;
  let ui: RunningUi;
  let browser: Browser;
  let world: World;
  let id: string;

  /** The UI of `npm run cluster` on a free loopback port, with the certificate or not. */
  async function clusterUi(settings: Partial<UiSettings>, port?: number): Promise<RunningUi> {
    const cluster = runCluster();
    const own = fs.mkdtempSync(path.join(dir, 'ui-'));
    return startTemporalUi(
      await resolveUiServer(),
      {
        address: cluster.address,
        namespace: cluster.namespace,
        port: port ?? (await lowFreePort()),
        ...settings,
      },
      own,
    );
  }

  const workflowsOf = (base: string) =>
    `${base}/namespaces/${runCluster().namespace}/workflows?query=${encodeURIComponent(
      `ClientId="${world.client.clientId}"`,
    )}`;
  const summary = () => `ADDITION ${id} · policy ${world.policy.policyNumber}`;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ghi-cluster-ui-'));
    const port = await lowFreePort();
    ({ server: codecServer, endpoint: codecEndpoint } = await startCodecServer(`http://127.0.0.1:${port}`));
    ui = await clusterUi({ tls: runCluster().tls, codecEndpoint }, port);

    world = await makeWorld({ adapter: 'manual' });
    id = await createEndorsement(world);
    await decide(id, { decision: 'APPROVED', insurer_member_id: 'INS-M-1', uhid: 'UHID-1' });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    // The UI lists from visibility (PostgreSQL here), which trails the workflow's close a little.
    await waitFor(
      async () =>
        (
          await stack().temporal.workflow.count(
            `ClientId = '${world.client.clientId}' AND ExecutionStatus = 'Completed'`,
          )
        ).count,
      (n) => n === 1,
      'visibility to list the completed endorsement',
    );
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await ui?.stop();
    codecServer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is configured as compose configures it: the codec endpoint in its settings', async () => {
    const settings = (await (await fetch(`${ui.url}/api/v1/settings`)).json()) as {
      Codec: { Endpoint: string };
      DefaultNamespace: string;
    };
    expect(settings.Codec.Endpoint).to.equal(codecEndpoint);
    expect(settings.DefaultNamespace).to.equal(runCluster().namespace);
  });

  it('lists the completed endorsement and opens its page: summary and details decoded, current details queried', async () => {
    const { page } = browser;
    const workflowId = endorsementWorkflowId(id);
    await page.goto(workflowsOf(ui.url));
    const link = page.getByRole('link', { name: workflowId });
    await link.first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.getByRole('link', { name: /^endorsement-/ }).count()).to.equal(1);
    expect(await textShowing(page, ['Completed'])).to.contain('Completed');
    await browser.screenshot('cluster-web-ui-workflows');

    await link.first().click();
    await page.getByText('User Metadata', { exact: true }).first().click();
    // Summary and details are encrypted payloads, readable only through the codec server; the current
    // details are the workflow's answer to the UI's query, through the cluster to the worker.
    const shown = [summary(), workflowId, `GET /v1/policy/endorsements/${id}`, `${id} · APPROVED`];
    const text = await textShowing(page, shown);
    for (const s of shown) expect(text).to.contain(s);
    await browser.screenshot('cluster-web-ui-endorsement');
  });

  it('shows nothing of the cluster from a UI without the client certificate', async () => {
    const bare = await clusterUi({ codecEndpoint });
    try {
      const api = (base: string) =>
        fetch(
          `${base}/api/v1/namespaces/${runCluster().namespace}/workflows?query=${encodeURIComponent(
            `ClientId="${world.client.clientId}"`,
          )}`,
        );
      const answered = await api(ui.url);
      expect(answered.status).to.equal(200);
      expect(await answered.text()).to.contain(endorsementWorkflowId(id));
      const refused = await api(bare.url);
      expect(refused.status, 'the frontend refused its plaintext call').to.not.equal(200);
      expect(await refused.text()).to.not.contain(endorsementWorkflowId(id));

      const { page } = browser;
      await page.goto(workflowsOf(bare.url));
      const text = await textShowing(page, ['Internal Error']);
      await browser.screenshot('cluster-web-ui-without-certificate');
      expect(text).to.contain('Internal Error');
      expect(text).to.not.contain(endorsementWorkflowId(id));
    } finally {
      await bare.stop();
    }
  });
});
