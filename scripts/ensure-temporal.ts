import { loadConfig } from '../config/index.js';
import { resolveTemporalCli } from '../infra/temporal.js';

/** Finds or builds the `temporal` CLI once (CI calls this before the tests), and prints its path. */
const cli = await resolveTemporalCli(loadConfig().TEMPORAL_CLI_PATH);
console.log(cli);
