/**
 * `node --import tsx bench/scope-read.ts`: CPU time of this process per tenant-scoped one-row read
 * (the Get Employee statement through a fresh TenantScope, as a request makes it) against the same
 * message on a bare `pg` pool of the same role: the data layer's own share of a read, without
 * HTTP, measured with process.cpuUsage (so other work on the machine moves it little). CONC=10 runs
 * ten reads at once.
 */
import pg from 'pg';
import { initOrm } from '../db/orm.js';
import { SYSTEM_SETTING, TENANT_SETTING } from '../db/roles.js';
import { TenantScope } from '../data/scope.js';
import { findEmployeeProfile } from '../data/employees.js';
import { loadBenchDataset } from './dataset.js';
import { migrateBenchDatabase, startBenchDatabase } from './stack.js';

const database = await startBenchDatabase('scoperead');
const { databaseUrl, systemDatabaseUrl, stops } = database;
const owner = await initOrm({ databaseUrl: database.ownerDatabaseUrl, poolMax: 2, as: 'owner' });
const orm = await initOrm({ databaseUrl, systemDatabaseUrl, poolMax: 4 });
const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
try {
  await migrateBenchDatabase(owner, database);
  const { clientId, employeeIds } = await loadBenchDataset(owner.em.fork(), 50);
  const id = employeeIds[7]!;
  const bare = () =>
    pool.query(
      `select set_config('${TENANT_SETTING}', ${pg.escapeLiteral(clientId)}, true), set_config('${SYSTEM_SETTING}', 'off', true);\n` +
        `select * from employees where client_id = ${pg.escapeLiteral(clientId)} and id = ${pg.escapeLiteral(id)}`,
    );
  const ours = () => findEmployeeProfile(TenantScope.of(orm.em, clientId), id);
  const N = Number(process.env.N ?? 5000);
  const cpu = async (fn: () => Promise<unknown>) => {
    const t0 = process.cpuUsage();
    let i = 0;
    // CONC loops at once, as a loaded API runs its requests (the pool holds 4 connections).
    await Promise.all(
      Array.from({ length: Number(process.env.CONC ?? 1) }, async () => {
        while (i++ < N) await fn();
      }),
    );
    const t = process.cpuUsage(t0);
    return (t.user + t.system) / N;
  };
  for (let i = 0; i < 2000; i++) await Promise.all([ours(), bare()]);
  // The scope alone (its EntityManager fork and filter), which every protected request makes.
  const scopeOnly = () => Promise.resolve(TenantScope.of(orm.em, clientId));
  const seen: Record<string, number[]> = { ours: [], bare: [], scope: [] };
  for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++) {
    seen.ours!.push(await cpu(ours));
    seen.bare!.push(await cpu(bare));
    seen.scope!.push(await cpu(scopeOnly));
  }
  for (const [who, xs] of Object.entries(seen)) {
    const sorted = [...xs].sort((a, b) => a - b);
    console.log(
      `${who} cpu_us_per_read ${sorted[Math.floor(xs.length / 2)]!.toFixed(1)} (rounds ${xs.map((x) => x.toFixed(0)).join(' ')})`,
    );
  }
} finally {
  await pool.end();
  await orm.close();
  await owner.close();
  while (stops.length) await stops.pop()!();
}
