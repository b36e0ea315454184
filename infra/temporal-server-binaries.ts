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
  const command = opts.command ?? ['go', 'install', MODULES.server, MODULES.sqlTool];
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const shown = command.join(' ');
  fs.mkdirSync(toolsDir, { recursive: true });
  const gobin = fs.mkdtempSync(path.join(toolsDir, '.build-'));
  log(`building the Temporal server once (${shown}), a few minutes`);
  const started = Date.now();
  const ticker = setInterval(
    () => log(`  still building the Temporal server (${Math.round((Date.now() - started) / 1000)} s)`),
    opts.tickMs ?? 10_000,
  );
  try {
    const { code, output } = await runCapturing(command, { ...process.env, GOBIN: gobin });
    if (code !== 0)
      throw new Error(cliBuildFailure(shown, code, output).replace('Temporal CLI', 'Temporal server'));
    const built = {
      server: path.join(toolsDir, NAMES.server),
      sqlTool: path.join(toolsDir, NAMES.sqlTool),
    };
    fs.renameSync(path.join(gobin, 'server'), built.server);
    fs.renameSync(path.join(gobin, 'sql'), built.sqlTool);
    log(`built the Temporal server in ${Math.round((Date.now() - started) / 1000)} s: ${built.server}`);
    return built;
  } finally {
    clearInterval(ticker);
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}
