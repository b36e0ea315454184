import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import { rosterTableRows } from '../adapters/file/roster-reader.js';
import { readExchangePolicy } from '../data/insurer-exchange/policies.js';
import { SystemScope } from '../data/scope.js';
import { initOrm } from '../db/orm.js';
import { completeReconciliation, parseRoster, stagePolicyRoster } from '../usecases/reconciliation/roster.js';
import { loadBenchDataset } from './dataset.js';
import { median } from './measure.js';
import { migrateBenchDatabase, startBenchDatabase } from './stack.js';

/**
 * `npm run bench:reconcile`: reconciling a roster of 50,000 members (25,000 employees and their
 * spouses, every member without a UHID here, every 100th with another sum insured) against the
 * policy's 50,000 member rows, against stream-parsing the same CSV alone. Ours: hash, stream-parse
 * and stage the roster, then the comparison (match, differences, 50,000 UHIDs filled and audited,
 * counts), as the workflow's activities run them (called directly: the workflow only passes ids).
 * Peak memory is the process's RSS above its level before each phase (after a full collection),
 * sampled every 10 ms; the figure that matters is ours less the parse's: what staging and comparing
 * add to reading the file, which must not grow with the roster. Writes bench/results/reconcile-latest.*.
 */
const EMPLOYEES = Number(process.env.BENCH_RECONCILE_EMPLOYEES ?? 25_000);
const ROUNDS = 3;
const RESULTS = path.resolve(import.meta.dirname, 'results');
const HEADER =
  'uhid,insurer_member_id,policy_number,employee_code,member_name,date_of_birth,relationship,sum_insured,coverage_start_date,coverage_end_date,status';

// A full collection before each phase, so its peak starts from live memory, not the last phase's garbage.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

/** Runs fn, sampling RSS: its time and the peak RSS above the level it started at (MB). */
async function measured<T>(fn: () => Promise<T>): Promise<{ ms: number; peakMb: number; value: T }> {
  collect();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const started = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { ms: performance.now() - started, peakMb: (peak - base) / 1024 / 1024, value };
  } finally {
    clearInterval(timer);
  }
}

async function writeRoster(
  file: string,
  policyNumber: string,
  people: { code: string; name: string; dob: string; rel: string }[],
  round: number,
) {
  const out = createWriteStream(file);
  out.write(`${HEADER}\r\n`);
  for (const [i, p] of people.entries()) {
    const sum = i % 100 === round ? '500000' : '300000';
    const line = `UH-${round}-${i},M-${i},${policyNumber},${p.code},${p.name},${p.dob},${p.rel},${sum},2026-01-01,2027-01-01,ACTIVE\r\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function main(): Promise<void> {
  const database = await startBenchDatabase('reconcile');
  const { stops } = database;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-reconcile-bench-'));
  stops.push(() => fs.rm(dir, { recursive: true, force: true }));
  try {
    const owner = await initOrm({ databaseUrl: database.ownerDatabaseUrl, poolMax: 2, as: 'owner' });
    stops.push(() => owner.close());
    await migrateBenchDatabase(owner, database);
    const orm = await initOrm({
      databaseUrl: database.databaseUrl,
      systemDatabaseUrl: database.systemDatabaseUrl,
      poolMax: 5,
    });
    stops.push(() => orm.close());
    const dataset = await loadBenchDataset(owner.em.fork(), EMPLOYEES);
    const conn = owner.em.getConnection();
    const policy = (await readExchangePolicy(SystemScope.of(orm.em.fork()), dataset.membersPolicyId))!;
    const people = await conn.execute<{ code: string; name: string; dob: string; rel: string }[]>(
      `select e.employee_code as code, coalesce(d.name, e.name) as name,
              to_char(coalesce(d.date_of_birth, e.date_of_birth), 'YYYY-MM-DD') as dob, coalesce(d.relationship, 'SELF') as rel
         from policy_members pm join employees e on e.id = pm.employee_id left join dependents d on d.id = pm.dependent_id
        where pm.policy_id = ? order by pm.id`,
      [policy.policyId],
    );
    const ours: { ms: number; peakMb: number }[] = [];
    const parse: { ms: number; peakMb: number }[] = [];
    let counts: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh start each round: no UHIDs here, another roster (so not a repeat).
      await conn.execute('update policy_members set uhid = null where policy_id = ?', [policy.policyId]);
      const file = path.join(dir, `roster-${round}.csv`);
      await writeRoster(file, policy.policyNumber, people, round);
      const parsed = await measured(async () => {
        let n = 0;
        for await (const row of parseRoster(policy, rosterTableRows(file, createReadStream(file))))
          n += row ? 1 : 0;
        return n;
      });
      if (parsed.value !== people.length) throw new Error(`parsed ${parsed.value} of ${people.length} rows`);
      parse.push(parsed);
      const run = await measured(async () => {
        const { reconciliation } = await stagePolicyRoster({ em: orm.em.fork() }, policy, {
          source: 'command',
          fileName: path.basename(file),
          open: () => createReadStream(file),
        });
        return completeReconciliation(orm.em.fork(), policy.clientId, reconciliation.id, '2026-06-01');
      });
      if (run.value?.result.status !== 'completed') throw new Error('the reconciliation did not complete');
      counts = run.value.result.counts;
      ours.push(run);
    }
    const ms = (xs: { ms: number }[]) => Math.round(median(xs.map((x) => x.ms)));
    const mb = (xs: { peakMb: number }[]) => Math.round(Math.max(...xs.map((x) => x.peakMb)));
    const figures = {
      members: people.length,
      rounds: ROUNDS,
      counts,
      ours_ms: ours.map((x) => Math.round(x.ms)),
      parse_ms: parse.map((x) => Math.round(x.ms)),
      ours_median_ms: ms(ours),
      parse_median_ms: ms(parse),
      ratio: Number((ms(ours) / ms(parse)).toFixed(2)),
      ours_peak_rss_mb: mb(ours),
      parse_peak_rss_mb: mb(parse),
      // What staging and comparing add to reading the file: bounded, whatever the roster's size.
      growth_over_parse_mb: mb(ours) - mb(parse),
      at: new Date().toISOString(),
    };
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, 'reconcile-latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
    const md = [
      '| scenario | ours (median ms) | parse alone (median ms) | ratio | peak RSS growth, ours / parse (MB) | ours above parse (MB) |',
      '| --- | --- | --- | --- | --- | --- |',
      `| reconcile a ${people.length}-member roster (CSV) | ${figures.ours_median_ms} | ${figures.parse_median_ms} | ${figures.ratio} | ${figures.ours_peak_rss_mb} / ${figures.parse_peak_rss_mb} | ${figures.growth_over_parse_mb} |`,
      '',
    ].join('\n');
    await fs.writeFile(path.join(RESULTS, 'reconcile-latest.md'), md);
    process.stdout.write(`${md}${JSON.stringify(figures)}\n`);
  } finally {
    while (stops.length) await stops.pop()!().catch((err: unknown) => console.error('bench cleanup:', err));
  }
}

await main();
