/**
 * `node --import tsx bench/cpu-probe.ts`: CPU time per request of the API process and of the bare
 * peer for the hot paths, and of PostgreSQL (all its processes, background ones included), read from
 * /proc (so other work on the machine moves it far less than it moves throughput). With
 * CPU_PROFILE_DIR set, every process also writes a V8 CPU profile on exit;
 * CASES=create,profile,profile-orm,members,policies,bulk,pages,backlog picks the routes (default all), N the requests per measurement,
 * ROUNDS the alternating ours/peer measurements (the median is printed), COUNT_TRANSACTIONS=1 adds
 * the API's database transactions per request. Two cases set our page 200 against our page 1 (limit
 * 50, as `npm run bench` does): `pages` a policy's members, `backlog` the insurer's backlog (10,000
 * waiting behind 30,000 decided); with either the stack holds 10,000 employees, else 2,000.
 */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bulkBodies } from './dataset.js';
import { additionBody } from './endorsements.js';
import { seedInsurerBacklog } from './insurer-backlog.js';
import { cursorOfPage } from './pages.js';
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

/**
 * A request's method and body: a GET, or a PATCH of the n-th of `bodies` (cycling); with `method`
 * POST, each body is sent once, in order, across the calls (the creates: one employee each).
 */
type Send = { bodies?: readonly string[]; method?: 'PATCH' | 'POST'; sent?: number };

async function hammer(url: string, headers: Record<string, string>, n: number, send: Send = {}, conc = 10) {
  let i = 0;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (i++ < n) {
        const body =
          send.method === 'POST'
            ? send.bodies?.[(send.sent = (send.sent ?? 0) + 1) - 1]
            : send.bodies?.[i % send.bodies.length];
        const init = body
          ? {
              method: send.method ?? 'PATCH',
              headers: { ...headers, 'content-type': 'application/json' },
              body,
            }
          : { headers };
        const r = await fetch(url, init);
        await r.arrayBuffer();
        if (!r.ok) throw new Error(`${url} ${r.status}`);
      }
    }),
  );
}

/** PostgreSQL's CPU: every server process's (the pools keep their backends for the whole run). */
const databaseTicks = () =>
  execSync('pgrep -x postgres || true')
    .toString()
    .trim()
    .split('\n')
    .filter(Boolean)
    .reduce((sum, pid) => {
      try {
        return sum + ticks(Number(pid));
      } catch {
        return sum;
      }
    }, 0);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Database transactions the API commits per request (every statement outside BEGIN is one, and so is
 * a message of several statements): PostgreSQL's own count for the bench database, before and after
 * 500 requests. A backend reports its counts within ~10 s of going idle, hence the waits.
 */
async function transactionsPer(url: string, headers: Record<string, string>, send?: Send): Promise<string> {
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
  await hammer(url, headers, 500, send);
  return (((await count()) - before - 2) / 500).toFixed(2);
}

// CASES=profile,policies: only those (one case per run keeps a CPU profile to one route).
const only = process.env.CASES?.split(',');
const wanted = (name: string) => !only || only.includes(name);
const s = await startBenchStack(wanted('backlog') || wanted('pages') ? 10_000 : 2000);
try {
  const api = pidOf(`${ROOT}/api/main.ts`);
  const peer = pidOf(`${ROOT}/bench/peers/server.ts`);
  const client = { authorization: `Bearer ${s.token}` };
  const { membersPolicyId, employeeIds, clientId } = s.dataset;
  const bulk = { bodies: bulkBodies(employeeIds) };
  // The creates (worker paused, as bench/endorsements.ts does): ours on the first half of the
  // employees, the peer (bench/peers/server.ts, the same statements and start) on the second.
  const creates = (ids: string[]): Send => ({
    method: 'POST',
    bodies: ids.map((id) => additionBody(id, s.dataset.policyIds[1]!)),
  });
  const half = Math.floor(employeeIds.length / 2);
  // A case: its name, our URL, the peer's, their requests, and its credentials (default: the client's).
  const cases: [string, string, string, Send?, Send?, Record<string, string>?][] = [
    [
      'create',
      `${s.apiUrl}/v1/policy/endorsements`,
      `${s.peerUrl}/endorsements`,
      creates(employeeIds.slice(0, half)),
      creates(employeeIds.slice(half)),
    ],
    [
      'profile',
      `${s.apiUrl}/v1/client/employees/profile?employee_id=${employeeIds[42]}`,
      `${s.peerUrl}/profile?employee_id=${employeeIds[42]}`,
    ],
    [
      'profile-orm',
      `${s.apiUrl}/v1/client/employees/profile?employee_id=${employeeIds[42]}`,
      `${s.peerUrl}/orm/profile?employee_id=${employeeIds[42]}`,
    ],
    [
      'members',
      `${s.apiUrl}/v1/policy/${membersPolicyId}/members?limit=50`,
      `${s.peerUrl}/members?policy_id=${membersPolicyId}&limit=50`,
    ],
    ['policies', `${s.apiUrl}/v1/policy/?client_id=${clientId}`, `${s.peerUrl}/policies?limit=10`],
    ['bulk', `${s.apiUrl}/v1/client/employees/bulk`, `${s.peerUrl}/bulk-single`, bulk],
  ];
  if (wanted('pages')) {
    const list = `${s.apiUrl}/v1/policy/${membersPolicyId}/members`;
    const page200 = `${list}?limit=50&start_cursor=${await cursorOfPage(list, s.token, 200)}`;
    cases.push(['pages', page200, `${list}?limit=50`]);
  }
  if (wanted('backlog')) {
    const insurer = await seedInsurerBacklog(s.orm.em.fork(), s.config, s.dataset, 10_000, 30_000);
    const list = `${s.apiUrl}/v1/insurer/endorsements`;
    const page200 = `${list}?limit=50&start_cursor=${await cursorOfPage(list, insurer, 200)}`;
    cases.push([
      'backlog',
      page200,
      `${list}?limit=50`,
      undefined,
      undefined,
      { authorization: `Bearer ${insurer}` },
    ]);
  }
  const N = Number(process.env.N ?? 4000);
  const rounds = Number(process.env.ROUNDS ?? 1);
  for (const [name, ours, bare, send, peerSend = send, h = client] of cases.filter(([name]) =>
    wanted(name),
  )) {
    const warmup = send?.method === 'POST' ? 30 : 1000;
    if (name === 'create') process.kill(s.workerPid, 'SIGSTOP');
    await hammer(ours, h, warmup, send);
    await hammer(bare, h, warmup, peerSend);
    const seen: Record<string, number[]> = { ours: [], peer: [] };
    const database: Record<string, number[]> = { ours: [], peer: [] };
    const rate: Record<string, number[]> = { ours: [], peer: [] };
    // The page cases' "peer" is our own page 1, served by the API.
    const peerPid = bare.startsWith(s.apiUrl) ? api : peer;
    // Alternating ours/peer, so a burst of other work on the machine lands on both.
    for (let round = 0; round < rounds; round++) {
      for (const [who, url, pid, body] of [
        ['ours', ours, api, send],
        ['peer', bare, peerPid, peerSend],
      ] as const) {
        const [t0, d0, w0] = [ticks(pid), databaseTicks(), performance.now()];
        await hammer(url, h, N, body);
        rate[who]!.push((N * 1000) / (performance.now() - w0));
        seen[who]!.push(((ticks(pid) - t0) * 10_000) / N);
        database[who]!.push(((databaseTicks() - d0) * 10_000) / N);
      }
    }
    for (const who of ['ours', 'peer']) {
      const us = seen[who]!.map((x) => x.toFixed(0));
      console.log(
        `${name} ${who} cpu_us_per_req ${median(seen[who]!).toFixed(0)} (rounds ${us.join(' ')}),` +
          ` database ${median(database[who]!).toFixed(0)}, ${median(rate[who]!).toFixed(0)} a second`,
      );
    }
    if (name === 'create') process.kill(s.workerPid, 'SIGCONT');
    if (process.env.COUNT_TRANSACTIONS)
      console.log(`${name} ours transactions_per_req ${await transactionsPer(ours, h, send)}`);
  }
} finally {
  await s.stop();
}
