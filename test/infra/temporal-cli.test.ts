import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { buildTemporalCli, cliBuildFailure } from '../../infra/temporal.js';

describe('building the Temporal CLI on the first npm start', () => {
  let gobin: string;
  beforeEach(async () => {
    gobin = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-gobin-'));
  });
  afterEach(() => fs.rm(gobin, { recursive: true, force: true }));

  it('says what it builds before it starts and where the binary went', async () => {
    const lines: string[] = [];
    // A stand-in for `go install` that writes the binary into GOBIN, as go does.
    const command = [
      process.execPath,
      '-e',
      'require("fs").writeFileSync(process.env.GOBIN + "/temporal", "")',
    ];
    const binary = await buildTemporalCli({ command, gobin, log: (l) => lines.push(l) });
    expect(binary).to.equal(path.join(gobin, 'temporal'));
    expect(lines[0]).to.equal(
      `building the Temporal CLI once (${command.join(' ')}), a few minutes; set TEMPORAL_CLI_PATH to skip`,
    );
    expect(lines.at(-1)).to.equal(`built the Temporal CLI: ${binary}`);
  });

  it('names the failed command, its exit code and its last output lines', async () => {
    const lines: string[] = [];
    const script = 'for (let i = 1; i <= 30; i++) console.error("go: line " + i); process.exit(3)';
    const command = [process.execPath, '-e', script];
    const failure = await buildTemporalCli({ command, gobin, log: (l) => lines.push(l) }).then(
      () => null,
      (err: Error) => err.message,
    );
    const expected = [
      `building the Temporal CLI failed: \`${command.join(' ')}\` exited with 3`,
      ...Array.from({ length: 20 }, (_, i) => `  go: line ${i + 11}`),
    ];
    expect(failure).to.equal(expected.join('\n'));
    expect(lines.some((l) => l.startsWith('built'))).to.equal(false);
  });

  it('names a command that cannot be started', async () => {
    const failure = await buildTemporalCli({
      command: ['no-such-go-binary', 'install'],
      gobin,
      log: () => {},
    }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failure?.split('\n')[0]).to.equal(
      'building the Temporal CLI failed: `no-such-go-binary install` exited with ENOENT',
    );
  });

  it('keeps only the last lines of a long output', () => {
    const output = Array.from({ length: 100 }, (_, i) => `l${i}`).join('\n');
    expect(cliBuildFailure('go install x', 1, `${output}\n`, 2)).to.equal(
      'building the Temporal CLI failed: `go install x` exited with 1\n  l98\n  l99',
    );
  });
});
