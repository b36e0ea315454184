import fs from 'node:fs';
import path from 'node:path';
import { cliBuildFailure, runCapturing, TOOLS_DIR } from './temporal.js';

/**
 * The Temporal server and its SQL schema tool, the same release as the dev server inside the pinned
 * CLI (v1.5.1 embeds server v1.29.1), so the cluster and the dev server run one engine version.
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULES = {
  server: `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`,
  sqlTool: `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
};
/** `go install` names binaries after their package (`server`, `sql`): installed under clearer names. */
const NAMES = { server: 'temporal-server', sqlTool: 'temporal-sql-tool' } as const;

export interface ServerBinaries {
  server: string;
  sqlTool: string;
}

export interface ServerBuildOptions {
  toolsDir?: string;
  /** The build command; one `go install` of both packages (they share most of the build). */
  command?: string[];
  log?: (line: string) => void;
  tickMs?: number;
}

/** `temporal-server` and `temporal-sql-tool` from .tools/bin, built there once when missing. */
export async function resolveServerBinaries(opts: ServerBuildOptions = {}): Promise<ServerBinaries> {
  const toolsDir = opts.toolsDir ?? TOOLS_DIR;
  const found = {
    server: path.join(toolsDir, NAMES.server),
    sqlTool: path.join(toolsDir, NAMES.sqlTool),
  };
  if (fs.existsSync(found.server) && fs.existsSync(found.sqlTool)) return found;
  return buildServerBinaries({ ...opts, toolsDir });
}

/**
 * Builds both binaries (a few minutes on 2 cores, cached by Go afterwards) into a private GOBIN and
 * moves them into place, so two runs building at once never see a half-written binary.
 */
export async function buildServerBinaries(opts: ServerBuildOptions = {}): Promise<ServerBinaries> {
  const toolsDir = opts.toolsDir ?? TOOLS_DIR;
  const built = await goInstallInto({
    what: 'the Temporal server',
    command: opts.command ?? ['go', 'install', MODULES.server, MODULES.sqlTool],
    toolsDir,
    rename: { server: NAMES.server, sql: NAMES.sqlTool },
    log: opts.log,
    tickMs: opts.tickMs,
  });
  return { server: built[NAMES.server]!, sqlTool: built[NAMES.sqlTool]! };
}

export interface GoInstall {
  /** What is built, in the progress lines and the failure ("the Temporal server"). */
  what: string;
  command: string[];
  toolsDir: string;
  /** The names `go install` gives (its packages' last path element) and the names installed under. */
  rename: Record<string, string>;
  log?: (line: string) => void;
  tickMs?: number;
}

/**
 * `go install` into a private GOBIN, saying so first and every ~10 s while it runs, then each binary
 * renamed into `toolsDir` (a rename is atomic: a concurrent run sees a whole binary or none). Returns
 * the installed paths by their new names; a failure names the command and its last output lines.
 */
export async function goInstallInto(job: GoInstall): Promise<Record<string, string>> {
  const log = job.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const shown = job.command.join(' ');
  fs.mkdirSync(job.toolsDir, { recursive: true });
  const gobin = fs.mkdtempSync(path.join(job.toolsDir, '.build-'));
  log(`building ${job.what} once (${shown}), a few minutes`);
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const ticker = setInterval(
    () => log(`  still building ${job.what} (${seconds()} s)`),
    job.tickMs ?? 10_000,
  );
  try {
    const { code, output } = await runCapturing(job.command, { ...process.env, GOBIN: gobin });
    if (code !== 0)
      throw new Error(cliBuildFailure(shown, code, output).replace('the Temporal CLI', job.what));
    const installed: Record<string, string> = {};
    for (const [goName, name] of Object.entries(job.rename)) {
      installed[name] = path.join(job.toolsDir, name);
      fs.renameSync(path.join(gobin, goName), installed[name]);
    }
    log(`built ${job.what} in ${seconds()} s: ${Object.values(installed).join(', ')}`);
    return installed;
  } finally {
    clearInterval(ticker);
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}
