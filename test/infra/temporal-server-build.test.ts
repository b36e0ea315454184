import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { buildServerBinaries, resolveServerBinaries } from '../../infra/temporal-server-binaries.js';
import { buildUiServer, resolveUiServer } from '../../infra/temporal-ui-server.js';

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

describe('building the Temporal Web UI server for the cluster', () => {
  let toolsDir: string;
  let moduleDir: string;
  beforeEach(async () => {
    toolsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-tools-'));
    moduleDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-ui-module-'));
    await fs.mkdir(path.join(moduleDir, 'config'));
    await fs.writeFile(path.join(moduleDir, 'config', 'docker.yaml'), '# enable-template\nport: 8080\n');
  });
  afterEach(async () => {
    await fs.rm(toolsDir, { recursive: true, force: true });
    await fs.rm(moduleDir, { recursive: true, force: true });
  });

  // A stand-in for `go install` of `cmd/server`: it writes `server` into GOBIN, as go does.
  const goInstall = [
    process.execPath,
    '-e',
    'require("fs").writeFileSync(process.env.GOBIN + "/server", "ui")',
  ];
  const options = () => ({ toolsDir, command: goInstall, moduleDir: async () => moduleDir, log: () => {} });

  it("installs the binary under its own name beside the module's config template (the image's)", async () => {
    const ui = await buildUiServer(options());
    expect(ui.binary).to.equal(path.join(toolsDir, 'temporal-ui-server'));
    expect(await fs.readFile(ui.binary, 'utf8')).to.equal('ui');
    expect(await fs.readFile(path.join(ui.root, ui.configDir, 'docker.yaml'), 'utf8')).to.equal(
      '# enable-template\nport: 8080\n',
    );
    expect((await fs.readdir(toolsDir)).sort()).to.deep.equal(['temporal-ui-config', 'temporal-ui-server']);
  });

  it('builds nothing when the binary and its template are there, and again when the template is gone', async () => {
    const ui = await buildUiServer(options());
    const failing = [process.execPath, '-e', 'process.exit(9)'];
    expect(await resolveUiServer({ ...options(), command: failing })).to.deep.equal(ui);
    await fs.rm(path.join(ui.root, ui.configDir), { recursive: true });
    const failure = await resolveUiServer({ ...options(), command: failing }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failure).to.match(/^building the Temporal Web UI server failed: .* exited with 9/);
  });
});
