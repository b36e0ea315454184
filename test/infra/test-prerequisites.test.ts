import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import {
  aptInstallCommand,
  missingPackagesReport,
  missingTestPackages,
  TEST_PACKAGES,
} from '../../infra/test-prerequisites.js';
import { closeSftpServer, startSftpServer } from '../support/sftp-server.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

describe('what npm test needs from the machine (npm run setup, npm test)', () => {
  it('a machine without sshd and chromium is told the one command that installs both', () => {
    const missing = missingTestPackages((file) => file !== '/usr/sbin/sshd' && file !== '/usr/bin/chromium');
    expect(missing.map((p) => p.pkg)).to.deep.equal(['chromium', 'openssh-server']);
    expect(aptInstallCommand(missing)).to.equal(
      'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium openssh-server',
    );
    expect(missingPackagesReport(missing).split('\n')).to.deep.equal([
      'npm test needs packages this machine lacks:',
      '  chromium (/usr/bin/chromium): the Web UI and /docs browser tests (test/browser)',
      "  openssh-server (/usr/sbin/sshd): the file insurers' SFTP delivery tests",
      'Install them as root with `npm run setup` (it also builds the Temporal CLI), or run:',
      "  sudo sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium openssh-server'",
    ]);
  });

  it('a machine with every package needs nothing', () => {
    expect(missingTestPackages(() => true)).to.deep.equal([]);
    expect(TEST_PACKAGES.map((p) => p.pkg)).to.include.members(['chromium', 'openssh-server']);
  });

  it('npm runs the check before npm test, and on this machine it passes silently', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.pretest).to.equal('node --import tsx scripts/setup.ts --check');
    expect(pkg.scripts.setup).to.equal('node --import tsx scripts/setup.ts');
    const { stdout, stderr } = await run('node', ['--import', 'tsx', 'scripts/setup.ts', '--check'], {
      cwd: ROOT,
    });
    expect({ stdout, stderr }).to.deep.equal({ stdout: '', stderr: '' });
  });

  it('an SFTP suite without sshd fails with one line, and its teardown reports nothing of its own', async () => {
    const failure = await startSftpServer('/nonexistent/sbin/sshd').then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(failure?.message).to.equal(
      '/nonexistent/sbin/sshd is missing: run `npm run setup` as root (it installs openssh-server)',
    );
    expect(failure?.stack).to.equal(failure?.message);
    // What a suite's after hook gets when its before hook failed: no server, no key folder.
    await closeSftpServer(undefined, undefined);
  });
});
