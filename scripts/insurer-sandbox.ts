import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../config/index.js';
import { decisionsClient, sandboxSettingsSchema, startInsurerSandbox } from '../infra/insurer-sandbox.js';
import { createLogger } from '../infra/logger.js';
import { ROOT } from '../infra/processes.js';

/**
 * The demo's API insurer on loopback (`npm start` runs it): its rules in data/insurer-sandbox.yaml,
 * its signing secret from the variable
 * INSURER_SANDBOX_SECRET_ENV names, and the insurer principal it decides with
 * (INSURER_SANDBOX_CLIENT_ID / INSURER_SANDBOX_CLIENT_SECRET). Logs ids and counts, never names.
 */
const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

async function main(): Promise<void> {
  const file = path.join(ROOT, 'data', 'insurer-sandbox.yaml');
  const settings = sandboxSettingsSchema.parse(YAML.parse(fs.readFileSync(file, 'utf8')));
  const deliver = decisionsClient(
    config.baseUrl,
    need('INSURER_SANDBOX_CLIENT_ID'),
    need('INSURER_SANDBOX_CLIENT_SECRET'),
  );
  const sandbox = await startInsurerSandbox({
    settings,
    secret: need(need('INSURER_SANDBOX_SECRET_ENV')),
    stateFile: path.join(config.dataDir, 'insurer-sandbox-owed.json'),
    port: config.INSURER_SANDBOX_PORT,
    deliver: async (decisions) => {
      await deliver(decisions);
      logger.info({ decided: decisions.map((d) => [d.endorsement_id, d.decision]) }, 'decisions delivered');
    },
    onRenewal: (r) =>
      logger.info(
        { renewal: r.id, term_start: r.term_start, carried: r.carried.length, dropped: r.dropped.length },
        'renewal received',
      ),
  });
  logger.info({ url: sandbox.url }, 'insurer sandbox listening');
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  logger.error({ err: err instanceof Error ? err.message : String(err) }, 'insurer sandbox failed');
  process.exit(1);
});
