import fs from 'node:fs';
import path from 'node:path';
import { goInstallInto } from './temporal-server-binaries.js';
import { runCapturing, TOOLS_DIR } from './temporal.js';

/**
 * The Temporal Web UI server for the cluster: the release the pinned CLI v1.5.1 embeds in its dev
 * server and docker-compose runs as the `temporalio/ui` image, so every UI here is one version.
 */
export const TEMPORAL_UI_VERSION = 'v2.42.1';
const MODULE_PATH = 'github.com/temporalio/ui-server/v2';
const MODULE = `${MODULE_PATH}@${TEMPORAL_UI_VERSION}`;
const PACKAGE = `${MODULE_PATH}/cmd/server@${TEMPORAL_UI_VERSION}`;
const BINARY = 'temporal-ui-server';
/** The image's config template (`config/docker.yaml`, settings from TEMPORAL_* variables), kept beside it. */
const CONFIG_DIR = 'temporal-ui-config';
export const UI_CONFIG_ENV = 'docker';

export interface UiServer {
  binary: string;
  /** `--root`/`--config` of the binary: the directory holding `docker.yaml`. */
  root: string;
  configDir: string;
}

export interface UiBuildOptions {
  toolsDir?: string;
  /** The build command; `go install` of the module's `cmd/server` unless a test gives another. */
  command?: string[];
  /** Where the module's source is (for its config template); `go mod download -json` unless given. */
  moduleDir?: () => Promise<string>;
  log?: (line: string) => void;
  tickMs?: number;
}

const located = (toolsDir: string): UiServer => ({
  binary: path.join(toolsDir, BINARY),
  root: toolsDir,
  configDir: CONFIG_DIR,
});
const templateFile = (ui: UiServer) => path.join(ui.root, ui.configDir, `${UI_CONFIG_ENV}.yaml`);

/** The UI server and its config template from .tools/bin, built there once when missing. */
export async function resolveUiServer(opts: UiBuildOptions = {}): Promise<UiServer> {
  const ui = located(opts.toolsDir ?? TOOLS_DIR);
  if (fs.existsSync(ui.binary) && fs.existsSync(templateFile(ui))) return ui;
  return buildUiServer(opts);
}

/** Copies the module's config template into place (the image's own file), then builds the binary. */
export async function buildUiServer(opts: UiBuildOptions = {}): Promise<UiServer> {
  const ui = located(opts.toolsDir ?? TOOLS_DIR);
  const source = path.join(
    await (opts.moduleDir ?? downloadedModuleDir)(),
    'config',
    `${UI_CONFIG_ENV}.yaml`,
  );
  fs.mkdirSync(path.dirname(templateFile(ui)), { recursive: true });
  const partial = `${templateFile(ui)}.${process.pid}`;
  // Its text, not the file: Go's module cache is read-only, and a copy would be too.
  fs.writeFileSync(partial, fs.readFileSync(source));
  fs.renameSync(partial, templateFile(ui));
  await goInstallInto({
    what: 'the Temporal Web UI server',
    command: opts.command ?? ['go', 'install', PACKAGE],
    toolsDir: ui.root,
    rename: { server: BINARY },
    log: opts.log,
    tickMs: opts.tickMs,
  });
  return ui;
}

/** `go mod download -json <module>@<version>`: the module's directory in Go's module cache (fetched once). */
async function downloadedModuleDir(): Promise<string> {
  const command = ['go', 'mod', 'download', '-json', MODULE];
  const { code, output } = await runCapturing(command, process.env);
  // Only the JSON object: the output may also hold go's own progress lines.
  const json = output.slice(output.indexOf('{'), output.lastIndexOf('}') + 1);
  const dir = code === 0 && json ? (JSON.parse(json) as { Dir?: string }).Dir : undefined;
  if (!dir) throw new Error(`\`${command.join(' ')}\` failed (${code}): ${output.slice(-2000)}`);
  return dir;
}
