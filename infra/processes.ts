import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Starts one of the project's TypeScript entry points as its own Node process. With `CPU_PROFILE_DIR`
 * set (e.g. for `npm run bench`), each process writes a V8 CPU profile there when it exits. With
 * `GC_TRACE_FILE` set, V8 traces every collection of every thread (`--trace-gc`, one line each with
 * the heap before and after) and the process's standard output goes to that file.
 */
export function spawnEntry(
  script: string,
  env: NodeJS.ProcessEnv,
  stdio: StdioOptions = ['ignore', 'inherit', 'inherit'],
): ChildProcess {
  const dir = env.CPU_PROFILE_DIR;
  const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
  const gcTrace = env.GC_TRACE_FILE;
  const traceFd = gcTrace ? openSync(gcTrace, 'a') : undefined;
  const out = traceFd === undefined ? stdio : ['ignore', traceFd, 'inherit'];
  const args = [...profile, ...(gcTrace ? ['--trace-gc'] : []), '--import', 'tsx', path.join(ROOT, script)];
  try {
    return spawn(process.execPath, args, { env, stdio: out as StdioOptions });
  } finally {
    // The child holds its own copy of the descriptor.
    if (traceFd !== undefined) closeSync(traceFd);
  }
}

/** Polls a URL until it answers 2xx. */
export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * What a child process said, bounded: its first and its last `keep` characters. A Go program's panic
 * puts its reason on the first line and its goroutine stacks after it, so the tail alone loses why.
 */
export class BoundedOutput {
  private head = '';
  private tail = '';
  private dropped = false;
  constructor(private readonly keep = 4000) {}

  add(chunk: Buffer | string): void {
    const text = chunk.toString();
    const room = this.keep - this.head.length;
    if (room > 0) this.head += text.slice(0, room);
    const rest = room > 0 ? text.slice(room) : text;
    if (!rest) return;
    const joined = this.tail + rest;
    if (joined.length > this.keep) this.dropped = true;
    this.tail = joined.slice(-this.keep);
  }

  toString(): string {
    return this.dropped ? `${this.head}\n[…]\n${this.tail}` : this.head + this.tail;
  }
}

/** Runs a command with stdout and stderr kept together (the last 64 KiB); never rejects on a bad exit. */
export function runCapturing(
  command: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve) => {
    const [file = '', ...args] = command;
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-65_536);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) =>
      resolve({ code: (err as NodeJS.ErrnoException).code ?? 'error', output: err.message }),
    );
    child.on('close', (code, signal) => resolve({ code: code ?? signal ?? 'unknown', output }));
  });
}
