import { loadConfig } from '../config/index.js';
import { resolveServerBinaries } from '../infra/temporal-server-binaries.js';
import { resolveTemporalCli } from '../infra/temporal.js';
import { resolveUiServer } from '../infra/temporal-ui-server.js';

/**
 * Finds or builds, once, what `npm run cluster` and `npm run test:cluster` need: the Temporal server,
 * its SQL schema tool and its Web UI server (into .tools/bin) and the `temporal` CLI. CI calls it
 * before the cluster tests so the build is not counted in a test's time limit. Prints the paths.
 */
const binaries = await resolveServerBinaries();
const ui = await resolveUiServer();
const cli = await resolveTemporalCli(loadConfig().TEMPORAL_CLI_PATH);
console.log([binaries.server, binaries.sqlTool, ui.binary, cli].join('\n'));
