import { existsSync } from 'node:fs';

/**
 * What `npm test` needs from the machine beyond `npm ci` and the Temporal CLI: Debian packages that
 * only root can install. One list for `npm run setup` (installs them) and the check `npm test` runs
 * first (stops at once when one is missing), so both name the same command.
 */
export const TEST_PACKAGES = [
  { pkg: 'chromium', binary: '/usr/bin/chromium', for: 'the Web UI and /docs browser tests (test/browser)' },
  { pkg: 'openssh-server', binary: '/usr/sbin/sshd', for: "the file insurers' SFTP delivery tests" },
  { pkg: 'jq', binary: '/usr/bin/jq', for: 'the requests the README and docs show (test/docs)' },
  { pkg: 'curl', binary: '/usr/bin/curl', for: 'the requests the README and docs show (test/docs)' },
] as const;

export type TestPackage = (typeof TEST_PACKAGES)[number];

export const missingTestPackages = (exists: (file: string) => boolean = existsSync): TestPackage[] =>
  TEST_PACKAGES.filter((p) => !exists(p.binary));

/** The one command that installs them, as root. */
export const aptInstallCommand = (missing: readonly TestPackage[]): string =>
  `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing.map((p) => p.pkg).join(' ')}`;

/** What `npm test` prints before stopping: each missing package and why, then what to run. */
export function missingPackagesReport(missing: readonly TestPackage[]): string {
  return [
    'npm test needs packages this machine lacks:',
    ...missing.map((p) => `  ${p.pkg} (${p.binary}): ${p.for}`),
    'Install them as root with `npm run setup` (it also builds the Temporal CLI), or run:',
    `  sudo sh -c '${aptInstallCommand(missing)}'`,
  ].join('\n');
}
