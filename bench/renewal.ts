import fs from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../config/index.js';
import { moveRenewal } from '../data/policy-year/renewals.js';
import { TenantScope } from '../data/scope.js';
import { initOrm } from '../db/orm.js';
import { systemClock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { createLogger } from '../infra/logger.js';
import { openPolicyRenewal, readRenewal, renewOnStart } from '../usecases/policy-year/renewals.js';
import { loadBenchDataset } from './dataset.js';
import { median } from './measure.js';
import { migrateBenchDatabase, startBenchDatabase } from './stack.js';

/**
 * `npm run bench:renewal`: renewing a policy term of 10,000 members (5,000 employees and their
 * spouses; BENCH_RENEWAL_EMPLOYEES sets the employees). Ours, as the workflow's activities run them
 * (called directly: the workflow passes ids only): the draft (read of the members and the pure draft,
 * what GET /v1/policy/{id}/renewal costs) and the confirmation's renewal on the new term's first day
 * (the new policy, its members carried in one statement, the CD moved, the old term closed), against
 * the peer: creating the same member rows in one `insert … select`. Each round renews the term the
 * round before created, so every round renews a policy of the full size. Writes
 * bench/results/renewal-latest.*.
 */
const EMPLOYEES = Number(process.env.BENCH_RENEWAL_EMPLOYEES ?? 5_000);
const ROUNDS = 3;
const RESULTS = path.resolve(import.meta.dirname, 'results');

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

async function main(): Promise<void> {
  const services = await startBenchDatabase('renewal');
  const { stops } = services;
  try {
    const owner = await initOrm({ databaseUrl: services.ownerDatabaseUrl, poolMax: 2, as: 'owner' });
    stops.push(() => owner.close());
    await migrateBenchDatabase(owner, services);
    const orm = await initOrm({ ...services, poolMax: 5 });
    stops.push(() => orm.close());
    const dataset = await loadBenchDataset(owner.em.fork(), EMPLOYEES);
    const conn = owner.em.getConnection();
    const config = loadConfig({ ...process.env, ...services.databaseEnv, LOG_LEVEL: 'silent' });
    // No webhook endpoints in the dataset: nothing to deliver, so no Temporal call is made.
    const deps = { config, clock: systemClock, logger: createLogger('silent'), temporal: {} as Client };
    const draft: number[] = [];
    const confirm: number[] = [];
    const peer: number[] = [];
    let policyId = dataset.membersPolicyId;
    let members = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const scope = TenantScope.of(orm.em.fork(), dataset.clientId);
      const renewal = await openPolicyRenewal(deps, scope, policyId, null);
      const read = await timed(() => readRenewal(scope, config, policyId));
      members = read.value!.draft.carried.length;
      draft.push(read.ms);
      await moveRenewal(scope, renewal.id, ['DRAFT'], 'CONFIRMED', { decidedBy: 'bench' });
      const renewed = await timed(() =>
        renewOnStart(deps, TenantScope.of(orm.em.fork(), dataset.clientId), policyId),
      );
      confirm.push(renewed.ms);
      // The peer: the same rows into a copy of the policy, in one statement.
      const copy = newId('policy');
      await conn.execute(
        `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium, gross_premium,
           coverage_type, type, status, start_date, end_date, slabs, default_sum_insured)
         select ?, client_id, policy_number || '/PEER' || ?, insurer_id, product_id, tpa_id, net_premium, gross_premium,
                coverage_type, type, 'POLICY_STATUS_INACTIVE', start_date, end_date, slabs, default_sum_insured
           from policies where id = ?`,
        [copy, round, policyId],
      );
      const bare = await timed(() =>
        conn.execute(
          `insert into policy_members (id, client_id, policy_id, employee_id, dependent_id, insurer_member_id, uhid,
             coverage_start_date, coverage_end_date, premium_amount, sum_insured, remaining_sum_insured, status,
             employee_name, member_rank)
           select 'mem_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 22), client_id, ?, employee_id,
                  dependent_id, insurer_member_id, uhid, coverage_start_date, coverage_end_date, premium_amount,
                  sum_insured, remaining_sum_insured, 'active', employee_name, member_rank
             from policy_members where policy_id = ? and status = 'active'`,
          [copy, policyId],
        ),
      );
      peer.push(bare.ms);
      policyId = renewed.value!;
    }
    const ms = (xs: number[]) => Math.round(median(xs));
    const figures = {
      members,
      rounds: ROUNDS,
      draft_ms: draft.map(Math.round),
      confirm_ms: confirm.map(Math.round),
      peer_ms: peer.map(Math.round),
      draft_median_ms: ms(draft),
      confirm_median_ms: ms(confirm),
      peer_median_ms: ms(peer),
      confirm_over_peer: Number((ms(confirm) / Math.max(ms(peer), 1)).toFixed(2)),
      at: new Date().toISOString(),
    };
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, 'renewal-latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
    const md = [
      '| scenario | draft (median ms) | renewal on the new start (median ms) | same rows in one insert (median ms) | ratio |',
      '| --- | --- | --- | --- | --- |',
      `| renew a ${members}-member term | ${figures.draft_median_ms} | ${figures.confirm_median_ms} | ${figures.peer_median_ms} | ${figures.confirm_over_peer} |`,
      '',
    ].join('\n');
    await fs.writeFile(path.join(RESULTS, 'renewal-latest.md'), md);
    process.stdout.write(`${md}${JSON.stringify(figures)}\n`);
  } finally {
    while (stops.length) await stops.pop()!().catch((err: unknown) => console.error('bench cleanup:', err));
  }
}

await main();
