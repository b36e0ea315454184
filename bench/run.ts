import fs from 'node:fs/promises';
import path from 'node:path';
import { DUMMY_HASH, SCRYPT, verifySecret } from '../domain/credentials.js';
import type { HealthCardData } from '../domain/health-card.js';
import { renderHealthCard } from '../usecases/coverage/health-card.js';
import { spawnEntry } from '../infra/processes.js';
import { compare, measure, median, type Figures } from './measure.js';
import type { LoadSpec } from './load.js';
import { BENCH_SETTINGS, benchTemporal, startBenchStack, type BenchStack } from './stack.js';
import { bulkBodies } from './dataset.js';
import { endorsementScenarios } from './endorsements.js';
import { seedInsurerBacklog } from './insurer-backlog.js';
import { cursorOfPage } from './pages.js';

/**
 * `npm run bench [-- --quick]`: every hot path side by side with a bare peer, in one run, alternating
 * ours and the peer, quoting the median of the rounds. Writes bench/results/latest.{json,md}.
 */
const quick = process.argv.includes('--quick');
export const PLAN = quick
  ? { employees: 10_000, rounds: 3, seconds: 1, warmup: 0.5, connections: 10, endorsements: 200 }
  : { employees: 10_000, rounds: 3, seconds: 5, warmup: 1, connections: 10, endorsements: 500 };

export interface Row {
  scenario: string;
  ours: Figures;
  peer: Figures;
  peerName: string;
  /** ours.rps / peer.rps unless a scenario says otherwise. */
  ratio: number;
  goal: string;
  met: boolean;
  note?: string;
}

export type Load = (
  spec: Omit<LoadSpec, 'connections'> & { connections?: number },
) => () => ReturnType<typeof measure>;

const RESULTS = path.resolve(import.meta.dirname, 'results');

function loader(): Load {
  return (spec) => () =>
    measure({
      connections: PLAN.connections,
      durationSeconds: PLAN.seconds,
      warmupSeconds: PLAN.warmup,
      ...spec,
    });
}

const auth = (s: BenchStack) => ({ authorization: `Bearer ${s.token}` });

async function readScenarios(s: BenchStack, load: Load): Promise<Row[]> {
  const rows: Row[] = [];
  const h = auth(s);
  const { clientId, membersPolicyId, employeeIds } = s.dataset;

  // 1. Framework + auth floor, and what token verification adds to a request.
  const floor = await compare(
    PLAN.rounds,
    load({ url: `${s.apiUrl}/v1/auth/session`, headers: h }),
    load({ url: `${s.peerUrl}/hello` }),
  );
  rows.push(
    row(
      'authenticated trivial route vs bare Koa hello-world',
      floor,
      'bare Koa hello',
      'informational (framework + auth floor)',
      () => true,
    ),
  );
  const verify = await compare(
    PLAN.rounds,
    load({ url: `${s.apiUrl}/v1/auth/session`, headers: h }),
    load({ url: `${s.apiUrl}/healthz` }),
  );

  // 2. A page of policies vs bare Koa + pg running the same SQL with the same JWT check.
  const policies = await compare(
    PLAN.rounds,
    load({ url: `${s.apiUrl}/v1/policy/?client_id=${clientId}`, headers: h }),
    load({ url: `${s.peerUrl}/policies?limit=10`, headers: h }),
  );
  rows.push(
    row('GET /v1/policy/', policies, 'bare Koa + pg, same SQL', '>= 0.8x throughput, p99 <= 1.5x', readGoal),
  );
  // Per-request time at a fixed concurrency is connections / rps: what verification adds to an authenticated read.
  const perRequest = (f: Figures) => PLAN.connections / f.rps;
  const share = (perRequest(verify.ours) - perRequest(verify.peer)) / perRequest(policies.ours);
  rows.push({
    ...row(
      'token verification: authenticated vs unauthenticated trivial route',
      verify,
      'our /healthz',
      '',
      () => true,
    ),
    ratio: Number(share.toFixed(3)),
    goal: 'verification < 5% of an authenticated read (ratio = added time / GET /v1/policy/ time)',
    met: share < 0.05,
  });

  // 3. Members page 1 vs page 200 (keyset), and the OFFSET peer at page 1 and page 200.
  const membersList = `${s.apiUrl}/v1/policy/${membersPolicyId}/members`;
  const members = `${membersList}?limit=50`;
  const page200 = await cursorOfPage(membersList, s.token, 200);
  const keyset = await compare(
    PLAN.rounds,
    load({ url: `${members}&start_cursor=${page200}`, headers: h }),
    load({ url: members, headers: h }),
  );
  rows.push(
    row(
      'members page 200 vs page 1 (keyset, limit 50)',
      keyset,
      'our page 1',
      'page 200 within 1.2x of page 1',
      (r) => r.ours.p50 <= 1.2 * r.peer.p50,
      'p50',
    ),
  );
  // 3b. D14: the insurer's backlog, page 200 vs page 1 (keyset across clients, limit 50, 10,000 waiting
  // behind 30,000 decided in the table).
  const insurer = await seedInsurerBacklog(s.orm.em.fork(), s.config, s.dataset, 10_000, 30_000);
  const backlogList = `${s.apiUrl}/v1/insurer/endorsements`;
  const backlog = `${backlogList}?limit=50`;
  const ih = { authorization: `Bearer ${insurer}` };
  const backlogPages = await compare(
    PLAN.rounds,
    load({
      url: `${backlog}&start_cursor=${await cursorOfPage(backlogList, insurer, 200)}`,
      headers: ih,
    }),
    load({ url: backlog, headers: ih }),
  );
  rows.push(
    row(
      'insurer backlog page 200 vs page 1 (keyset, limit 50, 10,000 waiting, 30,000 decided)',
      backlogPages,
      'our page 1',
      'page 200 within 1.2x of page 1',
      (r) => r.ours.p50 <= 1.2 * r.peer.p50,
      'p50',
    ),
  );
  const offset = await compare(
    PLAN.rounds,
    load({ url: `${s.peerUrl}/members-offset?policy_id=${membersPolicyId}&limit=50&page=200`, headers: h }),
    load({ url: `${s.peerUrl}/members-offset?policy_id=${membersPolicyId}&limit=50&page=1`, headers: h }),
  );
  rows.push(
    row(
      'OFFSET peer: page 200 vs page 1',
      offset,
      'OFFSET page 1',
      'informational (OFFSET grows)',
      () => true,
      'p50',
    ),
  );
  const membersPeer = await compare(
    PLAN.rounds,
    load({ url: members, headers: h }),
    load({ url: `${s.peerUrl}/members?policy_id=${membersPolicyId}&limit=50`, headers: h }),
  );
  rows.push(
    row(
      'GET /v1/policy/{id}/members?limit=50',
      membersPeer,
      'bare Koa + pg, same SQL',
      '>= 0.8x throughput, p99 <= 1.5x',
      readGoal,
    ),
  );
  // What the row-level security policies cost the same page: the peer under them vs as the owner.
  const rowSecurity = await compare(
    PLAN.rounds,
    load({ url: `${s.peerUrl}/members?policy_id=${membersPolicyId}&limit=50`, headers: h }),
    load({ url: `${s.peerUrl}/members-owner?policy_id=${membersPolicyId}&limit=50`, headers: h }),
  );
  rows.push(
    row(
      'row-level security: members page peer under the policies vs as the owner',
      rowSecurity,
      'bare peer as the owner',
      'informational (the policies’ own cost, paid by the service and its peers alike)',
      () => true,
    ),
  );

  // 4. Employee profile: against bare Koa + @koa/router + zod + the same MikroORM call (what our
  // middleware adds), and, as information, against bare Koa + pg (what the ORM and router add too).
  const profileUrl = `${s.apiUrl}/v1/client/employees/profile?employee_id=${employeeIds[42]}`;
  const profile = await compare(
    PLAN.rounds,
    load({ url: profileUrl, headers: h }),
    load({ url: `${s.peerUrl}/orm/profile?employee_id=${employeeIds[42]}`, headers: h }),
  );
  rows.push(
    row(
      'GET /v1/client/employees/profile',
      profile,
      'bare Koa + @koa/router + zod + the same MikroORM call',
      '>= 0.9x throughput, p99 <= 1.5x',
      (r) => r.ratio >= 0.9 && r.ours.p99 <= 1.5 * Math.max(r.peer.p99, 1),
    ),
  );
  const profileBare = await compare(
    PLAN.rounds,
    load({ url: profileUrl, headers: h }),
    load({ url: `${s.peerUrl}/profile?employee_id=${employeeIds[42]}`, headers: h }),
  );
  rows.push(
    row(
      'GET /v1/client/employees/profile vs bare Koa + pg',
      profileBare,
      'bare Koa + pg',
      'informational (framework, ORM and middleware together)',
      () => true,
    ),
  );

  // 5. Bulk update of 100 employees: ours, one hand-written statement, and row by row.
  const bodies = bulkBodies(employeeIds);
  const bulk = { method: 'PATCH' as const, headers: h, bodies, connections: 2 };
  const single = await compare(
    PLAN.rounds,
    load({ ...bulk, url: `${s.apiUrl}/v1/client/employees/bulk` }),
    load({ ...bulk, url: `${s.peerUrl}/bulk-single` }),
  );
  rows.push(
    row(
      'PATCH bulk 100 vs one statement (same locks and audit rows)',
      single,
      'single statement',
      'p50 within 1.3x',
      (r) => r.ours.p50 <= 1.3 * r.peer.p50,
      'p50',
    ),
  );
  const byRow = await compare(
    PLAN.rounds,
    load({ ...bulk, url: `${s.apiUrl}/v1/client/employees/bulk` }),
    load({ ...bulk, url: `${s.peerUrl}/bulk-rows` }),
  );
  rows.push(
    row(
      'PATCH bulk 100 vs 100 single-row updates',
      byRow,
      'row by row',
      '>= 10x faster',
      (r) => r.peer.p50 >= 10 * r.ours.p50,
      'p50',
    ),
  );
  // The goal above measured on the floor itself: the hand-written statement (the same locks and audit
  // rows) against row by row, from the two comparisons' peers in this run.
  rows.push(
    row(
      'one statement vs 100 single-row updates (the floor of the row above)',
      { ours: single.peer, peer: byRow.peer },
      'row by row',
      'informational (how much faster than row by row the least machinery is)',
      () => true,
      'p50',
    ),
  );
  return rows;
}

const readGoal = (r: Row) => r.ratio >= 0.8 && r.ours.p99 <= 1.5 * Math.max(r.peer.p99, 1);

function row(
  scenario: string,
  figures: { ours: Figures; peer: Figures },
  peerName: string,
  goal: string,
  met: (r: Row) => boolean,
  by: 'rps' | 'p50' = 'rps',
): Row {
  const ratio =
    by === 'rps' ? figures.ours.rps / figures.peer.rps : figures.ours.p50 / Math.max(figures.peer.p50, 0.001);
  const r: Row = { scenario, ...figures, peerName, ratio: Number(ratio.toFixed(3)), goal, met: false };
  r.met = met(r);
  return r;
}

/** 8. What a token and a health card cost, made explicit. */
async function costScenarios(s: BenchStack, load: Load): Promise<Row[]> {
  const scrypt: number[] = [];
  for (let i = 0; i < (quick ? 5 : 20); i++) {
    const t = performance.now();
    await verifySecret('x', DUMMY_HASH);
    scrypt.push(performance.now() - t);
  }
  const tokenBody = JSON.stringify({
    client_id: s.dataset.clientId,
    client_secret: s.dataset.clientSecret,
    scopes: ['policy.all'],
  });
  const token = await load({
    url: `${s.apiUrl}/v1/auth/token`,
    method: 'POST',
    body: tokenBody,
    amount: 60,
    connections: 2,
    warmupSeconds: 0,
  })();
  const scryptP50 = median(scrypt);
  const tokenRow: Row = {
    scenario: `POST /v1/auth/token (scrypt N=${SCRYPT.N}, r=${SCRYPT.r}, p=${SCRYPT.p})`,
    ours: { rps: token.rps, p50: token.p50, p99: token.p99, non2xx: token.non2xx },
    peer: { rps: 1000 / scryptP50, p50: scryptP50, p99: Math.max(...scrypt), non2xx: 0 },
    peerName: 'one scrypt verification in-process',
    ratio: Number((token.p50 / scryptP50).toFixed(3)),
    goal: 'informational: scrypt dominates the token request',
    met: true,
  };

  const coverage = (await (
    await fetch(`${s.apiUrl}/v1/policy/coverage/${s.dataset.employeeIds[7]}`, { headers: auth(s) })
  ).json()) as {
    payload: { pdf_url: string }[];
  };
  const pdfUrl = coverage.payload[0]!.pdf_url.replace(/^https?:\/\/[^/]+/, s.apiUrl);
  const render: number[] = [];
  for (let i = 0; i < (quick ? 20 : 100); i++) {
    const t = performance.now();
    await renderHealthCard(sampleCard(), new Date());
    render.push(performance.now() - t);
  }
  const pdf = await load({ url: pdfUrl, connections: 4 })();
  const renderP50 = median(render);
  const pdfRow: Row = {
    scenario: 'GET health-card PDF (signed link)',
    ours: { rps: pdf.rps, p50: pdf.p50, p99: pdf.p99, non2xx: pdf.non2xx },
    peer: { rps: 1000 / renderP50, p50: renderP50, p99: Math.max(...render), non2xx: 0 },
    peerName: 'PDF rendering alone, in-process',
    ratio: Number((pdf.p50 / Math.max(renderP50, 0.001)).toFixed(3)),
    goal: 'one card under 100 ms',
    met: pdf.p99 < 100,
  };
  return [tokenRow, pdfRow];
}

function sampleCard(): HealthCardData {
  return {
    memberName: 'Bench Member',
    employeeCode: 'B-1',
    policyNumber: 'BENCH/0',
    insurerName: 'Bench Insurance',
    tpaName: 'Bench TPA',
    productName: 'Bench Group Health',
    category: 'Group Health',
    uhid: null,
    sumInsured: '300000.00',
    coverageStartDate: '2026-01-01',
    coverageEndDate: '2027-01-01',
    policyStartDate: '2026-01-01',
    policyEndDate: '2027-01-01',
    coveredPersons: [
      { name: 'Bench Member', relationship: null },
      { name: 'Spouse', relationship: 'SPOUSE' },
    ],
  };
}

function markdown(rows: Row[], meta: Record<string, unknown>): string {
  const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
  const lines = [
    `Run ${String(meta.at)} on the Temporal ${meta.temporal === 'cluster' ? 'cluster (two nodes on PostgreSQL)' : 'dev server'} (${quick ? 'quick' : 'full'} mode, ${PLAN.rounds} rounds alternating ours/peer, median quoted, ${PLAN.connections} connections, no pipelining).`,
    '',
    '| scenario | ours rps | ours p50 ms | ours p99 ms | peer | peer rps | peer p50 ms | peer p99 ms | ratio | goal | met |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${fmt(r.ours.rps)} | ${fmt(r.ours.p50)} | ${fmt(r.ours.p99)} | ${r.peerName} | ${fmt(r.peer.rps)} | ${fmt(r.peer.p50)} | ${fmt(r.peer.p99)} | ${r.ratio} | ${r.goal} | ${r.met ? 'yes' : '**no**'}${r.note ? ` (${r.note})` : ''} |`,
    ),
    '',
    `Settings: ${JSON.stringify(meta.settings)}`,
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const s = await startBenchStack(PLAN.employees);
  try {
    const load = loader();
    const rows = [
      ...(await readScenarios(s, load)),
      ...(await endorsementScenarios(s, load, PLAN)),
      ...(await costScenarios(s, load)),
    ];
    const meta = {
      at: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      plan: PLAN,
      settings: BENCH_SETTINGS,
      temporal: benchTemporal(),
      seconds: Math.round((Date.now() - started) / 1000),
    };
    // BENCH_TEMPORAL=cluster writes beside the dev server's results, not over them.
    const name = benchTemporal() === 'cluster' ? 'latest-cluster' : 'latest';
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, `${name}.json`), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`);
    const md = markdown(rows, meta);
    await fs.writeFile(path.join(RESULTS, `${name}.md`), md);
    process.stdout.write(md);
  } finally {
    await s.stop();
  }
}

/**
 * The insurer's decisions (bench/decisions.ts), the bulk cut-off (bench/cut-off.ts), roster reconciliation (bench/reconcile.ts), census
 * (bench/census.ts), hostile upload (bench/uploads.ts) and renewal (bench/renewal.ts) scenarios run
 * after the others, each in its own process and on its own stack, so `npm run bench` covers them
 * too; `npm run bench:cut-off`, `npm run bench:reconcile`, `npm run bench:census`, `npm run bench:uploads` and `npm run bench:renewal` run one alone.
 */
async function separateScenario(entry: string): Promise<void> {
  const child = spawnEntry(entry, process.env, 'inherit');
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the scenario ${entry} exited with ${code}`);
}

await main();
// `--hot-paths`: the table above alone, for comparing changes to it run after run.
if (!process.argv.includes('--hot-paths')) {
  await separateScenario('bench/decisions.ts');
  await separateScenario('bench/cut-off.ts');
  await separateScenario('bench/reconcile.ts');
  await separateScenario('bench/census.ts');
  await separateScenario('bench/uploads.ts');
  await separateScenario('bench/renewal.ts');
}
