import { expect } from 'chai';
import type { OpenApiDocument } from '../../api/openapi/document.js';
import { client } from '../support/http.js';
import { stack } from '../support/stack.js';
import { openBrowser, type Browser } from './chromium.js';

type Operation = { operationId: string; tags: string[]; summary: string };

/** The integrators' view: GET /docs rendered by Swagger UI from node_modules, in a real browser. */
describe('API reference page (GET /docs) in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let url: string;
  let operations: (Operation & { method: string; path: string })[];
  const requested: string[] = [];

  before(async () => {
    url = (await stack().startApi()).url;
    const doc = (await client(url).get('/openapi.json')).body as OpenApiDocument;
    operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>).map(([method, op]) => ({ ...op, method, path })),
    );
    browser = await openBrowser();
    browser.page.on('request', (req) => requested.push(req.url()));
  });
  after(() => browser?.close());

  it("shows every route's section, from this server only, without errors", async () => {
    const { page } = browser;
    await page.goto(`${url}/docs`);
    await page.locator('.swagger-ui .opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.locator('.swagger-ui .opblock').count()).to.equal(operations.length);
    for (const op of operations) {
      const section = page.locator(`[id="operations-${op.tags[0]}-${op.operationId}"]`);
      expect(await section.count(), `${op.method} ${op.path}`).to.equal(1);
      const summary = await section.locator('.opblock-summary').innerText();
      expect(summary, op.operationId).to.contain(op.method.toUpperCase());
      expect(summary.replace(/\u200b/g, ''), op.operationId).to.contain(op.path);
    }
    expect(await page.innerText('.swagger-ui .info')).to.contain('Group Health Insurance Administration API');
    await browser.screenshot('api-reference');
    // No CDN: the page, the viewer and the document all come from this API.
    expect(requested.filter((r) => !r.startsWith(url) && !r.startsWith('data:'))).to.deep.equal([]);
    expect(browser.errors).to.deep.equal([]);
  });

  it('expands an operation to its scopes, body and every documented error', async () => {
    const { page } = browser;
    const token = page.locator('[id="operations-Authentication-issueToken"]');
    await token.locator('.opblock-summary').first().click();
    await token.locator('.responses-table').first().waitFor({ state: 'visible', timeout: 30_000 });
    const text = await token.innerText();
    for (const status of ['200', '400', '401', '403', '429', '500', '503']) expect(text).to.contain(status);
    expect(text).to.contain('Rate Limit Exceeded');
    expect(text).to.contain('client_secret');

    const policy = page.locator('[id="operations-Policies-getPolicy"]');
    await policy.locator('.opblock-summary').first().click();
    await policy.locator('.responses-table').first().waitFor({ state: 'visible', timeout: 30_000 });
    const policyText = await policy.innerText();
    expect(policyText).to.contain('policy.get');
    expect(policyText).to.contain('Policy Not Found');
    await browser.screenshot('api-reference-expanded');
  });
});
