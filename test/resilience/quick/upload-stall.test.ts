import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CENSUS_FILE_LIMITS,
  MAX_CENSUS_ROWS,
  MAX_JSON_DEPTH,
  MAX_JSON_NODES,
} from '../../../domain/upload-limits.js';
import {
  csvEmptyRows,
  csvMillionRows,
  jsonDeep,
  jsonManyNodes,
  xlsxEmptyRows,
  xlsxSharedStrings,
} from '../../support/hostile-uploads.js';
import { apiProcessWithTenant } from '../support/api-process.js';
import { residentMiB } from '../support/children.js';
import { percentiles, report } from '../support/report.js';

/**
 * Abuse: census uploads built to cost the API the most per byte (found by an attack: a 2 MB CSV of
 * a million rows blocked the API's event loop for 75 s; a 50 KB workbook of 5 million empty rows
 * cost a minute), each sent by four connections at once by a client allowed to upload a census,
 * while /healthz is asked again and again from another connection. Each is refused naming the bound
 * it crossed, every /healthz asked meanwhile answers 200, and the API process is alive after.
 */
const PATH = '/v1/policy/endorsements/batches?dry_run=true';
const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const JSON_TYPE = 'application/json';
const ATTACKERS = 4;
/** Each connection sends the file this many times, one after another. */
const ROUNDS = 3;
/**
 * /healthz answers completed while the uploads ran. The probe shares this process with the four
 * senders (on a loaded machine a fast refusal of twelve 10 MiB bodies can end within two polls), so
 * the bound asserted is an answer during the attack, every answer a 200, and none lost.
 */
const MIN_POLLS = 1;

const tooManyFileRows = `the census has more than ${CENSUS_FILE_LIMITS.rows} rows (blank rows count)`;

describe('resilience: hostile census uploads do not stall the API', () => {
  const started = apiProcessWithTenant('uploads', 'up');

  interface Answer {
    status: number;
    body: { type?: string; title?: string; detail?: string };
  }

  /** Four connections send the file ROUNDS times at once while /healthz is polled; answers what each saw. */
  async function attack(label: string, file: Buffer, type: string) {
    const { api, tenant } = started();
    const rssBefore = await residentMiB(api.process.pid!);
    let attacking = true;
    const polls: { status: number; ms: number }[] = [];
    const probe = (async () => {
      while (attacking) {
        const t = performance.now();
        const res = await fetch(`${api.url}/healthz`);
        await res.arrayBuffer();
        polls.push({ status: res.status, ms: performance.now() - t });
        await sleep(10);
      }
    })();
    const t = performance.now();
    const answers = (
      await Promise.all(
        Array.from({ length: ATTACKERS }, async () => {
          const seen: Answer[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            const res = await fetch(`${api.url}${PATH}`, {
              method: 'POST',
              headers: { 'content-type': type, authorization: `Bearer ${tenant.token}` },
              body: file,
            });
            seen.push({ status: res.status, body: (await res.json()) as Answer['body'] });
          }
          return seen;
        }),
      )
    ).flat();
    const wallMs = Math.round(performance.now() - t);
    const during = polls.length;
    attacking = false;
    await probe;
    const rssAfter = await residentMiB(api.process.pid!);
    report(`hostile upload: ${label}`, {
      bytes: file.length,
      attackers: ATTACKERS,
      wallMs,
      polls: during,
      healthzMs: percentiles(polls.map((p) => p.ms)),
      rssMiB: { before: rssBefore, after: rssAfter },
    });
    expect(
      polls.every((p) => p.status === 200),
      'every /healthz answered 200',
    ).to.equal(true);
    expect(during, '/healthz answers while the uploads ran').to.be.at.least(MIN_POLLS);
    expect(api.process.exitCode, 'the API process is alive').to.equal(null);
    const after = await fetch(`${api.url}/healthz`);
    expect(after.status).to.equal(200);
    return { answers };
  }

  function expectRefused(answers: Answer[], status: number, body: Answer['body']) {
    expect(answers).to.have.length(ATTACKERS * ROUNDS);
    for (const a of answers) {
      expect(a.status).to.equal(status);
      expect(a.body).to.include(body);
    }
  }

  it('refuses a CSV of a million one-character rows at the row bound (413)', async function () {
    this.timeout(180_000);
    const { answers } = await attack('CSV, a million rows', csvMillionRows(), CSV);
    // Every row holds a cell: D16's bound on data rows is the one crossed first.
    expectRefused(answers, 413, {
      type: 'PAYLOAD_TOO_LARGE',
      title: 'Too Many Rows',
      detail: `a census holds at most ${MAX_CENSUS_ROWS} rows`,
    });
  });

  it('counts blank rows: 10 MiB of empty CSV rows is refused at the row bound (413)', async function () {
    this.timeout(180_000);
    const { answers } = await attack('CSV, 10 MiB of empty rows', csvEmptyRows(), CSV);
    expectRefused(answers, 413, {
      type: 'PAYLOAD_TOO_LARGE',
      title: 'Too Many Rows',
      detail: tooManyFileRows,
    });
  });

  it('counts empty <row/> elements: a workbook of 5 million empty rows is refused (413)', async function () {
    this.timeout(180_000);
    const file = xlsxEmptyRows();
    expect(file.length).to.be.lessThan(100_000);
    const { answers } = await attack('XLSX, 5 million empty rows', file, XLSX);
    expectRefused(answers, 413, {
      type: 'PAYLOAD_TOO_LARGE',
      title: 'Too Many Rows',
      detail: tooManyFileRows,
    });
  });

  it('bounds the shared strings table while it streams (413)', async function () {
    this.timeout(180_000);
    const { answers } = await attack('XLSX, 5 million shared strings', xlsxSharedStrings(), XLSX);
    expectRefused(answers, 413, {
      type: 'PAYLOAD_TOO_LARGE',
      title: 'Census Too Large',
      detail: `the census has more than ${CENSUS_FILE_LIMITS.sharedStrings} shared strings`,
    });
  });

  it('refuses a 10 MiB JSON census of 3.5 million values by its size, before reading it (413)', async function () {
    this.timeout(180_000);
    const { answers } = await attack('JSON, 10 MiB of {}', jsonManyNodes(10 * 1024 * 1024), JSON_TYPE);
    expectRefused(answers, 413, { type: 'PAYLOAD_TOO_LARGE', detail: 'request body exceeds 4 MiB' });
  });

  it('counts a JSON body’s values as it arrives: 4 MiB of {} is refused past the bound (400)', async function () {
    this.timeout(180_000);
    const { answers } = await attack('JSON, 4 MiB of {}', jsonManyNodes(4 * 1024 * 1024 - 64), JSON_TYPE);
    expectRefused(answers, 400, {
      type: 'VALIDATION_ERROR',
      detail: `body: must hold at most ${MAX_JSON_NODES} values in one request`,
    });
  });

  it('refuses JSON nested two million levels deep at the depth bound (400)', async function () {
    this.timeout(180_000);
    const { answers } = await attack('JSON, 2 million levels', jsonDeep(2_000_000), JSON_TYPE);
    expectRefused(answers, 400, {
      type: 'VALIDATION_ERROR',
      detail: `rows: must not nest deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  it('still reads an ordinary census after the attacks', async function () {
    this.timeout(60_000);
    const { http, tenant } = started();
    const res = await http.post(PATH, {
      token: tenant.token,
      rawBody: Buffer.from('Employee Code,Action,Effective Date\r\n\r\nE-404,add,2026-12-01\r\n'),
      headers: { 'content-type': CSV },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payload.rows).to.have.length(1);
    expect(res.body.payload.rows[0]).to.include({ row: 1 });
  });
});
