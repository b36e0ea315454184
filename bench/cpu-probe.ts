/**
 * `node --import tsx bench/cpu-probe.ts`: CPU time per request of the API process and of the bare
 * peer for the hot reads, read from /proc (so other work on the machine moves it far less than it
 * moves throughput). With CPU_PROFILE_DIR set, every process also writes a V8 CPU profile on exit;
 * CASES=profile,members,policies picks the routes (default all), N the requests per measurement,
 * ROUNDS the alternating ours/peer measurements (the median is printed), COUNT_TRANSACTIONS=1 adds
 * the API's database transactions per request.
 */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startBenchStack } from './stack.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ticks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(f[11]) + Number(f[12]);
};
const pidOf = (pattern: string) =>
  execSync(`pgrep -f '${pattern}'`)
    .toString()
    .trim()
    .split('\n')
    .map(Number)
    .find((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(process.execPath);
      } catch {
        return false;
      }
    })!;

async function hammer(url: string, headers: Record<string, string>, n: number, conc = 10) {
  let i = 0;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (i++ < n) {
        const r = await fetch(url, { headers });
        await r.arrayBuffer();
        if (!r.ok) throw new Error(`${url} ${r.status}`);
      }
    }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Database transactions the API commits per request (every statement outside BEGIN is one, and so is
 * a message of several statements): PostgreSQL's own count for the bench database, before and after
 * 500 requests. A backend reports its counts within ~10 s of going idle, hence the waits.
 */
async function transactionsPer(url: string, headers: Record<string, string>): Promise<string> {
  const count = async () => {
    await new Promise((r) => setTimeout(r, 11_000));
    const conn = s.orm.em.getConnection();
    await conn.execute('select pg_stat_clear_snapshot()');
    const [row] = await conn.execute<{ n: string }[]>(
      'select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()',
    );
    return Number(row!.n);
  };
  const before = await count();
  await hammer(url, headers, 500);
  return (((await count()) - before - 2) / 500).toFixed(2);
}

const s = await startBenchStack(2000);
try {
  const api = pidOf(`${ROOT}/api/main.ts`);
  const peer = pidOf(`${ROOT}/bench/peers/server.ts`);
  const h = { authorization: `Bearer ${s.token}` };
  const { membersPolicyId, employeeIds, clientId } = s.dataset;
  const cases: [string, string, string][] = [
    [
      'profile',
      `${s.apiUrl}/v1/client/employees/profile?employee_id=${employeeIds[42]}`,
      `${s.peerUrl}/profile?employee_id=${employeeIds[42]}`,
    ],
    [
      'members',
      `${s.apiUrl}/v1/policy/${membersPolicyId}/members?limit=50`,
      `${s.peerUrl}/members?policy_id=${membersPolicyId}&limit=50`,
    ],
    ['policies', `${s.apiUrl}/v1/policy/?client_id=${clientId}`, `${s.peerUrl}/policies?limit=10`],
  ];
  const N = Number(process.env.N ?? 4000);
  // CASES=profile,policies: only those (one case per run keeps a CPU profile to one route).
  const only = process.env.CASES?.split(',');
  const rounds = Number(process.env.ROUNDS ?? 1);
  for (const [name, ours, bare] of cases.filter(([name]) => !only || only.includes(name))) {
    await hammer(ours, h, 1000);
    await hammer(bare, h, 1000);
    const seen: Record<string, number[]> = { ours: [], peer: [] };
    // Alternating ours/peer, so a burst of other work on the machine lands on both.
    for (let round = 0; round < rounds; round++) {
      for (const [who, url, pid] of [
        ['ours', ours, api],
        ['peer', bare, peer],
      ] as const) {
        const t0 = ticks(pid);
        await hammer(url, h, N);
        seen[who]!.push(((ticks(pid) - t0) * 10_000) / N);
      }
    }
    for (const who of ['ours', 'peer']) {
      const us = seen[who]!.map((x) => x.toFixed(0));
      console.log(`${name} ${who} cpu_us_per_req ${median(seen[who]!).toFixed(0)} (rounds ${us.join(' ')})`);
    }
    if (process.env.COUNT_TRANSACTIONS)
      console.log(`${name} ours transactions_per_req ${await transactionsPer(ours, h)}`);
  }
} finally {
  await s.stop();
}
