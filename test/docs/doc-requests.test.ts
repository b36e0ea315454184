import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import YAML from 'yaml';
import { loadPartners, loadReferenceData } from '../../usecases/reference-load.js';
import { loadFileSchema } from '../../domain/schemas/reference-load.js';
import { makeClient, type TestClient } from '../support/factories.js';
import {
  CURL_RECORDER,
  differsFromShown,
  docFiles,
  NPM_START_SECTION,
  requestBlocks,
  runnableScript,
  type DocBlock,
} from '../support/doc-requests.js';
import { stack } from '../support/stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

interface Answer {
  block: number;
  status: number;
  body: string;
}

/**
 * Every file's blocks, read once at load so each file gets its own test; but the README's walkthrough
 * that needs a running `npm start`, which test/infra/start.test.ts runs there.
 */
const allBlocks = docFiles(ROOT).map((file) => ({
  file,
  blocks: requestBlocks(file, readFileSync(path.join(ROOT, file), 'utf8')),
}));
const npmStartBlocks = allBlocks
  .filter((f) => f.file === 'README.md')
  .flatMap((f) => f.blocks.filter((b) => b.section === NPM_START_SECTION));
const files = allBlocks
  .map((f) => ({ file: f.file, blocks: f.blocks.filter((b) => !npmStartBlocks.includes(b)) }))
  .filter((f) => f.blocks.length > 0);
const readme = files.find((f) => f.file === 'README.md');
/** The README's token step: every other file's requests run after it, as its readers' do. */
const tokenStep = readme?.blocks.find((b) => /\/v1\/auth\/token/.test(b.script));

describe('every request the README and the docs show, against an API with the demo data', function () {
  this.timeout(180_000);
  let base: string;
  let demo: TestClient;

  before(async () => {
    demo = await makeClient({ name: 'Docs demo client' });
    const read = (name: string) =>
      loadFileSchema.parse(YAML.parse(readFileSync(path.join(ROOT, 'data', name), 'utf8')));
    // As npm start loads them: the platform's partners, then the demo client's policies naming them.
    await loadPartners(stack().orm.em.fork(), read('partners.yaml'));
    await loadReferenceData(stack().orm.em.fork(), demo.clientId, read('demo.yaml'));
    base = (await stack().startApi()).url;
  });

  it('the README shows a token step and requests to run', () => {
    expect(tokenStep, 'README.md: no ```sh block asking POST /v1/auth/token').to.not.equal(undefined);
    expect(files.reduce((n, f) => n + f.blocks.length, 0)).to.be.greaterThan(3);
  });

  it(`leaves only the README's "${NPM_START_SECTION}" to the npm start test, which runs its requests`, () => {
    expect(npmStartBlocks, 'README.md: the npm start walkthrough has no request').to.not.have.length(0);
  });

  for (const { file, blocks } of files) {
    it(`${file}: each request answers 2xx, and as the doc shows (${blocks.length} blocks)`, async () => {
      const steps: DocBlock[] = file === 'README.md' || !tokenStep ? blocks : [tokenStep, ...blocks];
      const dir = mkdtempSync(path.join(os.tmpdir(), 'doc-requests-'));
      const log = path.join(dir, 'answers.log');
      const script = [
        CURL_RECORDER,
        ...steps.map((b, i) => `DOC_BLOCK=${i}\n# ${b.file}:${b.line}\n${runnableScript(b)}`),
      ].join('\n');
      try {
        try {
          await run('bash', ['--norc', '--noprofile', '-c', script], {
            cwd: dir,
            env: {
              PATH: process.env.PATH,
              BASE: base,
              CLIENT_ID: demo.clientId,
              CLIENT_SECRET: demo.clientSecret,
              DOC_LOG: log,
            },
            maxBuffer: 16 * 1024 * 1024,
          });
        } catch (err) {
          const e = err as { stderr?: string; code?: number };
          const done = answers(log);
          const failed = steps[done.at(-1)?.block ?? 0]!;
          throw new Error(
            `${failed.file}:${failed.line}: the block failed (exit ${e.code}): ${e.stderr ?? ''}`,
          );
        }
        const got = answers(log);
        steps.forEach((b, i) => {
          const mine = got.filter((a) => a.block === i);
          expect(mine, `${b.file}:${b.line} made no request`).to.not.have.length(0);
          for (const a of mine) expect(a.status, `${b.file}:${b.line}: ${a.body}`).to.be.within(200, 299);
          if (b.shownAnswer === undefined) return;
          const last = mine.at(-1)!;
          const difference = differsFromShown(b.shownAnswer, JSON.parse(last.body));
          expect(
            difference,
            `${b.file}:${b.line}: the answer differs from the one shown: ${last.body}`,
          ).to.equal(null);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

function answers(log: string): Answer[] {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [block, status, body] = line.split(' ');
      return {
        block: Number(block),
        status: Number(status),
        body: Buffer.from(body ?? '', 'base64').toString('utf8'),
      };
    });
}
