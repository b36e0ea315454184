import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { bracketedArgumentsMessage } from '../../scripts/command-args.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe("operator commands typed with a usage line's brackets", () => {
  it('names what to type instead', () => {
    expect(
      bracketedArgumentsMessage(['client:create', '--name', 'Acme', '[--scopes', 'policy.all]']),
    ).to.equal(
      'optional arguments go without their brackets: type `--scopes policy.all`, not `[--scopes policy.all]`',
    );
    expect(bracketedArgumentsMessage(['stuck', '[--json]'])).to.equal(
      'optional arguments go without their brackets: type `--json`, not `[--json]`',
    );
  });

  it('lets bracket-free arguments through, and text that merely holds brackets', () => {
    expect(bracketedArgumentsMessage(['client:create', '--name', 'Acme', '--scopes', 'policy.all'])).to.equal(
      null,
    );
    expect(bracketedArgumentsMessage(['reject', 'end_1', '--reason', '[scan] unreadable'])).to.equal(null);
  });

  for (const [script, args] of [
    ['admin', ['client:create', '--name', 'Acme', '[--scopes', 'policy.all]', '--json']],
    ['ops', ['stuck', '[--older-than', '3d]']],
    ['insurer', ['flush', 'CARE', '[--json]']],
  ] as const) {
    it(`${script} stops with that line (exit 2) before touching anything`, async () => {
      const failure = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', `scripts/${script}.ts`, ...args],
        {
          cwd: ROOT,
          // No stack and no variables: without the check the command would fail on those instead.
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            DATA_DIR: path.join(os.tmpdir(), 'gh-no-stack'),
          },
        },
      ).then(
        () => null,
        (err: unknown) => err as { code: number; stdout: string; stderr: string },
      );
      expect(failure?.code).to.equal(2);
      expect(failure?.stdout).to.equal('');
      expect(failure?.stderr.trim()).to.match(
        /^optional arguments go without their brackets: type `[^`]+`, not `\[[^`]+\]`$/,
      );
    });
  }
});
