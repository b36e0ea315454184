/**
 * `node --import tsx bench/cpu-probe.ts`: CPU time per request of the API process and of the bare
 * peer for the hot reads, read from /proc (so other work on the machine moves it far less than it
 * moves throughput). With CPU_PROFILE_DIR set, every process also writes a V8 CPU profile on exit.
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
  for (const [name, ours, bare] of cases) {
    await hammer(ours, h, 1000);
    await hammer(bare, h, 1000);
    for (const [who, url, pid] of [
      ['ours', ours, api],
      ['peer', bare, peer],
    ] as const) {
      const t0 = ticks(pid);
      await hammer(url, h, N);
      const us = ((ticks(pid) - t0) * 10_000) / N;
      console.log(`${name} ${who} cpu_us_per_req ${us.toFixed(0)}`);
    }
  }
} finally {
  await s.stop();
}
