import { expect } from 'chai';
import { openBrowser } from './chromium.js';

describe('browser test launcher', () => {
  it('fails with one line naming the missing Chromium and the package to install', async () => {
    const missing = '/nonexistent/bin/chromium';
    const failure = await openBrowser(missing).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(failure, 'openBrowser resolved without a Chromium').to.be.instanceOf(Error);
    expect(failure!.message).to.equal(
      `Chromium not found at ${missing}: run \`npm run setup\` as root (it installs chromium)`,
    );
    // Mocha prints the stack: it is that one line, no frames.
    expect(failure!.stack).to.equal(failure!.message);
  });
});
