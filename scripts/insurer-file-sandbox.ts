import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { localInsurerFolders } from '../adapters/file/local.js';
import { loadConfig } from '../config/index.js';
import { fileTemplate } from '../domain/insurer-exchange/file-templates/index.js';
import { startFileInsurerSandbox } from '../infra/insurer-file-sandbox.js';
import { sandboxSettingsSchema } from '../infra/insurer-sandbox.js';
import { createLogger } from '../infra/logger.js';
import { ROOT } from '../infra/processes.js';

/**
 * The demo's file insurer on this machine (`npm start` runs it as `care` when the demo's file insurer
 * uses the local transport): the rules and the insurer's code in data/insurer-sandbox.yaml
 * (`file_insurer`), its template from INSURER_FILE_SANDBOX_TEMPLATE (the insurer's stored setting).
 * Logs file names, ids and decisions, never a person's data.
 */
const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

async function main(): Promise<void> {
  const file = path.join(ROOT, 'data', 'insurer-sandbox.yaml');
  const settings = sandboxSettingsSchema.parse(YAML.parse(fs.readFileSync(file, 'utf8')));
  if (!settings.file_insurer) throw new Error(`${file} names no file_insurer`);
  const code = settings.file_insurer.code;
  const { outbox, inbox } = localInsurerFolders(config.dataDir, code);
  const sandbox = await startFileInsurerSandbox({
    settings: { ...settings, uhid_prefix: settings.file_insurer.uhid_prefix },
    insurerCode: code,
    template: fileTemplate(process.env.INSURER_FILE_SANDBOX_TEMPLATE || 'generic'),
    outbox,
    inbox,
    stateFile: path.join(config.dataDir, `insurer-file-sandbox-${code}.json`),
    onAnswered: (a) => logger.info(a, 'response file written'),
    onError: (err) =>
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'outbox pass failed'),
  });
  logger.info({ insurer: code, outbox, inbox }, 'file insurer sandbox watching its outbox');
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  logger.error({ err: err instanceof Error ? err.message : String(err) }, 'file insurer sandbox failed');
  process.exit(1);
});
