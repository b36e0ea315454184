import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadConfig } from '../config/index.js';
import { resolveTemporalCli } from '../infra/temporal.js';
import {
  aptInstallCommand,
  missingPackagesReport,
  missingTestPackages,
} from '../infra/test-prerequisites.js';

/**
 * `npm run setup`: what a fresh machine needs for `npm test`. As root it installs the missing Debian
 * packages with apt and builds the Temporal CLI; as anyone else it changes nothing and prints the one
 * command to run as root. `--check` (run by npm before `npm test`) only checks, and stops the run at
 * once with that command when a package is missing. Safe to run again: it installs only what is missing.
 */
const checkOnly = process.argv.includes('--check');
const missing = missingTestPackages();
const root = process.getuid?.() === 0;

if (missing.length > 0) {
  if (checkOnly || !root) {
    console.error(missingPackagesReport(missing));
    process.exit(1);
  }
  console.log(`Installing ${missing.map((p) => p.pkg).join(', ')} with apt`);
  execFileSync('sh', ['-c', aptInstallCommand(missing)], { stdio: 'inherit' });
}
if (!checkOnly) {
  // sshd running as root wants its privilege separation directory (the SFTP tests start it as root).
  if (root) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const cli = await resolveTemporalCli(loadConfig().TEMPORAL_CLI_PATH);
  console.log(`Temporal CLI: ${cli}`);
  console.log('Ready for npm test.');
}
