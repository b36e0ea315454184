import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../infra/ports.js';
import { SHARED_SOURCE_BUDGETS, stack, TEST_KEYS } from '../../support/stack.js';

/**
 * The production entry points (worker/main.ts, api/main.ts) as child processes, so a test can
 * SIGKILL them the way an orchestrator or the kernel would. Every child is tracked and ended by
 * `stopChildren()` (only the processes these helpers started).
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const running = new Set<Child>();

export interface Target {
  /** The service's two logins (DATABASE_URL, DATABASE_SYSTEM_URL). */
  databaseUrl: string;
  systemDatabaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
}

export interface Child {
  name: string;
  process: ChildProcess;
  /** Everything it printed (stdout and stderr), for failure messages and the personal-data scan. */
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const ownTarget = (taskQueue: string): Target => ({
  databaseUrl: stack().databaseUrl,
  systemDatabaseUrl: stack().systemDatabaseUrl,
  temporalAddress: stack().temporalAddress,
  taskQueue,
});

function envFor(target: Target, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: target.databaseUrl,
    DATABASE_SYSTEM_URL: target.systemDatabaseUrl,
    DATABASE_OWNER_URL: '',
    DATABASE_POOL_MAX: '5',
    TEMPORAL_ADDRESS: target.temporalAddress,
    TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
    TEMPORAL_TASK_QUEUE: target.taskQueue,
    // Ports of their own: two children (or a running npm start) never clash on the metrics ports.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    ...SHARED_SOURCE_BUDGETS,
    ...TEST_KEYS,
    ...extra,
  };
}

function spawnEntry(name: string, script: string, env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const entry: Child = { name, process: child, output, exited };
  running.add(entry);
  void exited.then(() => running.delete(entry));
  return entry;
}

/**
 * worker/main.ts on the target; resolves once it polls (its "worker running" line at info level).
 * With TEST_EXIT_AFTER_COMMIT in `extra`, the crash worker (test/support/crash-worker.ts) instead.
 */
export async function startWorker(target: Target, extra: Record<string, string> = {}): Promise<Child> {
  const entry = extra.TEST_EXIT_AFTER_COMMIT ? 'test/support/crash-worker.ts' : 'worker/main.ts';
  const child = spawnEntry('worker', entry, envFor(target, { LOG_LEVEL: 'info', ...extra }));
  await waitForOutput(child, '"worker running"', 120_000);
  return child;
}

/** api/main.ts on a free port of the loopback interface; resolves once /healthz answers. */
export async function startApiProcess(
  target: Target,
  extra: Record<string, string> = {},
): Promise<Child & { url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnEntry(
    'api',
    'api/main.ts',
    envFor(target, { PORT: String(port), HOST: '127.0.0.1', BASE_URL: url, ...extra }),
  );
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`api exited: ${child.output.join('')}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { ...child, url };
    if (Date.now() > deadline) throw new Error(`api did not start: ${child.output.join('')}`);
    await sleep(200);
  }
}

async function waitForOutput(child: Child, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!child.output.join('').includes(text)) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited before "${text}": ${child.output.join('').slice(-4000)}`);
    }
    if (Date.now() > deadline) throw new Error(`${child.name} did not print "${text}" in time`);
    await sleep(100);
  }
}

/** SIGKILL: no shutdown hook runs, in-flight activities and requests are lost mid-way. */
export async function kill9(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGKILL');
  await child.exited;
}

/** SIGTERM with a bounded grace, then SIGKILL. */
export async function stopChild(child: Child, graceMs = 15_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  child.process.kill('SIGTERM');
  await child.exited;
  clearTimeout(timer);
}

export async function stopChildren(): Promise<void> {
  await Promise.all([...running].map((c) => stopChild(c)));
}

/** Resident memory of a child in MiB (Linux /proc), for the soak and the fuzz figures. */
export async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}
