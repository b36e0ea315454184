import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { fileExchangeSettingsSchema, type FileExchangeSettings } from '../adapters/file/settings.js';
import { requireDatabaseUrl, type Config } from '../config/index.js';
import { initOrm } from '../db/orm.js';
import { deliverCutOff, type DeliveredFile } from '../usecases/insurer-files.js';

export const FLUSH_USAGE = 'insurer flush <insurer_code> [--settings exchange.json] [--json]';

/** A command line the operator must correct (exit code 2). */
export class FlushUsageError extends Error {}

/** Exchange settings from a JSON file, checked whole; none: the defaults (generic, XLSX, local outbox). */
async function readSettings(file: string | undefined): Promise<FileExchangeSettings> {
  if (!file) return fileExchangeSettingsSchema.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new FlushUsageError(`--settings ${file}: ${(err as Error).message}`);
  }
  const parsed = fileExchangeSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new FlushUsageError(`--settings ${file} is not valid:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}

const describe = (files: DeliveredFile[]): string =>
  files.length === 0
    ? 'no endorsements waiting: no file written'
    : files.map((f) => `${f.file_name}  ${f.policy_number}  ${f.rows} rows  -> ${f.destination}`).join('\n');

/**
 * `insurer flush CODE`: runs a cut-off of a file insurer now and prints the files it delivered
 * (names, policies, counts; no personal data). Running it again the same day rewrites the same files.
 */
export async function flushInsurer(config: Config, argv: string[]): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { settings: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const [code] = positionals;
  if (!code || positionals.length !== 1) throw new FlushUsageError(`usage: ${FLUSH_USAGE}`);
  const settings = await readSettings(values.settings);
  const orm = await initOrm({ databaseUrl: requireDatabaseUrl(config), poolMax: 2 });
  try {
    const cutOff = new Date();
    const files = await deliverCutOff(
      { em: orm.em.fork(), dataDir: config.dataDir },
      { insurerCode: code, settings, cutOff },
    );
    return values.json
      ? JSON.stringify({ insurer_code: code, cut_off: cutOff.toISOString(), files }, null, 2)
      : describe(files);
  } finally {
    await orm.close();
  }
}
