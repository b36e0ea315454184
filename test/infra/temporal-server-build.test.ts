import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { buildServerBinaries, resolveServerBinaries } from '../../infra/temporal-server-binaries.js';

describe('building the Temporal server for the cluster', () => {
  let toolsDir: string;
  beforeEach(async () => {
    toolsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-tools-'));
  });
  afterEach(() => fs.rm(toolsDir, { recursive: true, force: true }));

  // A stand-in for `go install` of both packages: it writes `server` and `sql` into GOBIN, as go does.
  const goInstall = [
    process.execPath,
    '-e',
    'for (const b of ["server", "sql"]) require("fs").writeFileSync(process.env.GOBIN + "/" + b, b)',
  ];

  it('installs both binaries under their own names, says so, and leaves no build directory', async () => {
    const lines: string[] = [];
    const built = await buildServerBinaries({ toolsDir, command: goInstall, log: (l) => lines.push(l) });
    expect(built).to.deep.equal({
      server: path.join(toolsDir, 'temporal-server'),
      sqlTool: path.join(toolsDir, 'temporal-sql-tool'),
    });
    expect(await fs.readFile(built.server, 'utf8')).to.equal('server');
    expect(await fs.readFile(built.sqlTool, 'utf8')).to.equal('sql');
    expect((await fs.readdir(toolsDir)).sort()).to.deep.equal(['temporal-server', 'temporal-sql-tool']);
    expect(lines[0]).to.equal(`building the Temporal server once (${goInstall.join(' ')}), a few minutes`);
    expect(lines.at(-1)).to.match(/^built the Temporal server in \d+ s: /);
  });

  it('builds nothing when both binaries are there', async () => {
    await buildServerBinaries({ toolsDir, command: goInstall, log: () => {} });
    const failing = [process.execPath, '-e', 'process.exit(9)'];
    const found = await resolveServerBinaries({ toolsDir, command: failing, log: () => {} });
    expect(found.server).to.equal(path.join(toolsDir, 'temporal-server'));
  });

  it('names the failed command and its exit code', async () => {
    const failing = [process.execPath, '-e', 'console.error("go: no network"); process.exit(9)'];
    const failure = await buildServerBinaries({ toolsDir, command: failing, log: () => {} }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failure).to.equal(
      `building the Temporal server failed: \`${failing.join(' ')}\` exited with 9\n  go: no network`,
    );
    expect(await fs.readdir(toolsDir)).to.deep.equal([]);
  });
});
