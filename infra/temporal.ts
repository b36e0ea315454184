import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection, type TLSConfig } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
import { SERVICE_DYNAMIC_CONFIG } from './temporal-cluster-config.js';
import { BoundedOutput, runCapturing } from './processes.js';

export { runCapturing };

const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
export const TOOLS_DIR = path.resolve(import.meta.dirname, '..', '.tools', 'bin');

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** TEMPORAL_CLI_PATH, else `temporal` on PATH, else built once into .tools/bin with `go install`. */
export async function resolveTemporalCli(explicit?: string): Promise<string> {
  if (explicit) return explicit;
  const found =
    onPath('temporal') ??
    (fs.existsSync(path.join(TOOLS_DIR, 'temporal')) ? path.join(TOOLS_DIR, 'temporal') : null);
  if (found) return found;
  return buildTemporalCli();
}

export interface CliBuildOptions {
  /** The build command; `go install` of the pinned CLI unless a test gives another. */
  command?: string[];
  gobin?: string;
  /** Where the progress lines go (stderr: stdout carries the stack's own output). */
  log?: (line: string) => void;
  tickMs?: number;
}

/**
 * Builds the CLI once (a few minutes, silent by nature), saying so first, a line every ~10 s while it
 * runs, and where the binary went; a failure names the command and its last output lines.
 */
export async function buildTemporalCli(opts: CliBuildOptions = {}): Promise<string> {
  const { command = ['go', 'install', TEMPORAL_CLI_MODULE], gobin = TOOLS_DIR, tickMs = 10_000 } = opts;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const shown = command.join(' ');
  fs.mkdirSync(gobin, { recursive: true });
  log(`building the Temporal CLI once (${shown}), a few minutes; set TEMPORAL_CLI_PATH to skip`);
  const started = Date.now();
  const ticker = setInterval(
    () => log(`  still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)`),
    tickMs,
  );
  try {
    const { code, output } = await runCapturing(command, { ...process.env, GOBIN: gobin });
    if (code !== 0) throw new Error(cliBuildFailure(shown, code, output));
  } finally {
    clearInterval(ticker);
  }
  const binary = path.join(gobin, 'temporal');
  log(`built the Temporal CLI: ${binary}`);
  return binary;
}

/** The failure as an operator needs it: what ran, how it ended, and the tail of what it said. */
export function cliBuildFailure(command: string, code: number | string, output: string, lines = 20): string {
  const tail = output.trimEnd().split('\n').slice(-lines);
  return [
    `building the Temporal CLI failed: \`${command}\` exited with ${code}`,
    ...tail.map((l) => `  ${l}`),
  ].join('\n');
}

export interface DevServerOptions {
  cli: string;
  port: number;
  uiPort?: number;
  /** SQLite file; omit for an in-memory server. */
  dbFile?: string;
  namespace?: string;
  /** The Web UI's remote codec endpoint, so it shows payloads decrypted (infra/codec-server.ts). */
  uiCodecEndpoint?: string;
}

export interface RunningDevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** `temporal server start-dev` with the project's search attributes registered at launch. */
export async function startDevServer(opts: DevServerOptions): Promise<RunningDevServer> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--log-level',
    'error',
  ];
  args.push(...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']));
  if (opts.uiPort && opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  for (const [key, value] of Object.entries(SERVICE_DYNAMIC_CONFIG)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  for (const key of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=${cliType(key.type)}`);
  const child = spawn(opts.cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr = new BoundedOutput();
  child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk));
  const address = `127.0.0.1:${opts.port}`;
  await waitForTemporal(address, 60_000, () =>
    child.exitCode !== null ? `dev server exited (${child.exitCode}): ${stderr.toString()}` : null,
  );
  return {
    address,
    uiUrl: opts.uiPort ? `http://127.0.0.1:${opts.uiPort}` : null,
    process: child,
    stop: () => stopChild(child),
  };
}

function cliType(type: string): string {
  return (
    {
      KEYWORD: 'Keyword',
      BOOL: 'Bool',
      TEXT: 'Text',
      INT: 'Int',
      DOUBLE: 'Double',
      DATETIME: 'Datetime',
      KEYWORD_LIST: 'KeywordList',
    }[type] ?? type
  );
}

export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function waitForTemporal(
  address: string,
  timeoutMs: number,
  failed?: () => string | null,
  tls?: TLSConfig,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const why = failed?.();
    if (why) throw new Error(why);
    try {
      const connection = await Connection.connect({ address, tls, connectTimeout: 1_000 });
      try {
        await connection.healthService.check({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Temporal at ${address} not reachable: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Registers the search attributes on a namespace of an external cluster; already-present ones are kept. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((key) => [
        key.name,
        proto.temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`],
      ]),
    ),
  });
}
