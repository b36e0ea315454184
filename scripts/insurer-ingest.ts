import { parseArgs } from 'node:util';
import { InsurerDeliveryError } from '../adapters/file/transport.js';
import { ConfigError, requireDatabaseUrls } from '../config/index.js';
import { initOrm } from '../db/orm.js';
import { operatorConfig } from '../infra/local-stack.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import { IngestError, ingestInboxFiles, type IngestedInboxFile } from '../usecases/insurer-exchange/inbox.js';

export const INGEST_USAGE =
  '  insurer ingest <INSURER_CODE> [FILE] [--json]   read response files from a file insurer’s inbox now';

class IngestUsageError extends Error {}

/** A file's outcome for a terminal: one line, then its rows (ids and answers only). */
function describe(f: IngestedInboxFile): string {
  const head = `${f.file_name}: ${f.status}${f.repeat ? ' (ingested before: recorded outcome)' : ''}`;
  if (f.status === 'refused') return `${head}: ${f.error}`;
  const counts = `accepted ${f.counts.accepted}, duplicate ${f.counts.duplicate}, refused ${f.counts.refused}`;
  const rows = f.rows.map((r) => `  row ${r.row}  ${r.reference}  ${r.result}: ${r.detail}`);
  return [`${head}: ${counts}`, ...rows].join('\n');
}

async function ingest(argv: string[]): Promise<{ insurer_code: string; files: IngestedInboxFile[] }> {
  const { positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [code, file] = positionals;
  if (!code || positionals.length > 2) throw new IngestUsageError(`usage:\n${INGEST_USAGE}`);
  const config = operatorConfig(['database', 'temporal']);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 4 });
  const temporal = createTemporalClient(config);
  try {
    const files = await ingestInboxFiles(
      { em: orm.em.fork(), temporal, dataDir: config.dataDir, taskQueue: config.TEMPORAL_TASK_QUEUE },
      { insurerCode: code, fileName: file },
    );
    return { insurer_code: code, files };
  } finally {
    await temporal.connection.close();
    await orm.close();
  }
}

/**
 * `insurer ingest CODE [FILE]` (D14): ingests a file insurer's response files now, as its inbox
 * Schedule does (every settled file, or the one named, even one already moved to processed/: a
 * file ingested before answers its recorded outcome). Exits 1 when a file was refused whole.
 */
export function runIngestCommand(argv: string[]): void {
  const json = argv.includes('--json');
  ingest(argv).then(
    (result) => {
      const text = json
        ? JSON.stringify(result, null, 2)
        : result.files.length === 0
          ? `no response files waiting for insurer ${result.insurer_code}`
          : result.files.map(describe).join('\n');
      process.stdout.write(`${text}\n`);
      if (result.files.some((f) => f.status === 'refused')) process.exitCode = 1;
    },
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      const known =
        err instanceof IngestUsageError ||
        err instanceof IngestError ||
        err instanceof ConfigError ||
        err instanceof InsurerDeliveryError;
      process.stderr.write(`${known ? message : `failed: ${message}`}\n`);
      process.exitCode = err instanceof IngestUsageError ? 2 : 1;
    },
  );
}
