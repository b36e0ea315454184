import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { partialName } from '../adapters/file/transport.js';
import { tableRows } from '../adapters/file/table-reader.js';
import type { FileField, FileTemplate } from '../domain/insurer-exchange/file.js';
import { RESPONSE_FILE_LIMITS } from '../domain/upload-limits.js';
import type { SandboxSettings } from './insurer-sandbox.js';
import { writeCsv, type SheetTable } from './spreadsheet-files.js';

/**
 * A file insurer's operations team for the local demo (CARE in data/partners.yaml): it reads each
 * endorsement file a cut-off delivers to the insurer's outbox, decides every endorsement in it by the
 * sandbox's rules (data/insurer-sandbox.yaml: the delay, the rejected names, the reason, the UHID
 * prefix), and drops a response file in the insurer's real template into the inbox the service reads
 * (`insurer ingest`, or the `insurer-inbox` Schedule). It only reads our files and writes its own, as an
 * insurer on the other side of the folders would.
 *
 * Idempotency: a cut-off file is answered once, by a response file of a name derived from its own
 * (`RESPONSE_<cut-off file stem>.csv`), recorded in the state file after the rename; UHIDs and member
 * ids are derived from the reference and the person, so a response written again after a crash says
 * exactly what the first said (the ingest then answers `duplicate`). Only this process writes the
 * state file (one sandbox per DATA_DIR, as npm start runs it).
 */
export interface FileSandboxOptions {
  settings: SandboxSettings;
  /** The insurer's code: its cut-off files are named `<CODE>_…`. */
  insurerCode: string;
  template: FileTemplate;
  /** Where the cut-off delivers (our outbox) and where the insurer's answers go (our inbox). */
  outbox: string;
  inbox: string;
  /** Names of the cut-off files already answered (mode 0600); none: memory only. */
  stateFile?: string;
  /** How often the outbox is looked at. */
  pollMs?: number;
  now?: () => number;
  /** Told of each response written: ids and counts only. */
  onAnswered?: (answer: FileAnswer) => void;
  /** Told of a pass that failed (an unreadable file); the next pass tries again. */
  onError?: (err: unknown) => void;
}

export interface FileAnswer {
  cut_off_file: string;
  response_file: string;
  decided: [reference: string, decision: 'APPROVED' | 'REJECTED'][];
}

export interface RunningFileSandbox {
  /** One look at the outbox now: answers every cut-off file that is due. */
  poll(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_POLL_MS = 2_000;

export async function startFileInsurerSandbox(opts: FileSandboxOptions): Promise<RunningFileSandbox> {
  const now = opts.now ?? Date.now;
  const answered = new Set(await readState(opts.stateFile));
  /** Cut-off files seen, by name: when each was first seen (its answer is due a delay later). */
  const seen = new Map<string, number>();
  const reject = opts.settings.reject_names_matching
    ? new RegExp(opts.settings.reject_names_matching, 'i')
    : null;
  const ours = new RegExp(`^${opts.insurerCode}_.+\\.(csv|xlsx)$`, 'i');
  let closed = false;
  let running: Promise<void> = Promise.resolve();

  const pass = async (): Promise<void> => {
    const names = await fs.readdir(opts.outbox).catch(() => [] as string[]);
    // One answer per cut-off and policy: its CSV when the insurer gets both formats, else its XLSX.
    const stems = new Map<string, string>();
    for (const name of names.filter((n) => ours.test(n) && !n.endsWith('.ack.csv')).sort()) {
      const stem = name.replace(/\.(csv|xlsx)$/i, '');
      if (!stems.has(stem) || name.toLowerCase().endsWith('.csv')) stems.set(stem, name);
    }
    for (const [stem, name] of stems) {
      if (answered.has(stem)) continue;
      const first = seen.get(stem) ?? now();
      seen.set(stem, first);
      if (now() - first < opts.settings.approve_after_seconds * 1000) continue;
      const content = await fs.readFile(path.join(opts.outbox, name));
      const { table, decided } = await answer(name, content);
      const responseName = `RESPONSE_${stem}.csv`;
      if (decided.length > 0) await writeInto(opts.inbox, responseName, writeCsv(table));
      answered.add(stem);
      seen.delete(stem);
      await writeState(opts.stateFile, [...answered]);
      opts.onAnswered?.({ cut_off_file: name, response_file: responseName, decided });
    }
  };

  /** The response table for one cut-off file: one row per person of every endorsement it adds or changes. */
  const answer = async (name: string, content: Buffer) => {
    const t = opts.template;
    const fieldAt = new Map<FileField, number>();
    const rows: Record<string, string>[] = [];
    for await (const row of tableRows(name, content, RESPONSE_FILE_LIMITS)) {
      if (row.rowNumber === 1) {
        row.cells.forEach((h, i) => {
          const column = t.columns.find((c) => c.header.toLowerCase() === h.trim().toLowerCase());
          if (column) fieldAt.set(column.field, i);
        });
        continue;
      }
      const cell = (f: FileField) => row.cells[fieldAt.get(f) ?? -1]?.trim() ?? '';
      rows.push({
        reference: cell('reference'),
        action: cell('action'),
        member_name: cell('member_name'),
        relationship: cell('relationship'),
        date_of_birth: cell('date_of_birth'),
      });
    }
    // A withdrawal (the cancellation word) needs no answer: the insurer just drops the endorsement.
    const byReference = new Map<string, Record<string, string>[]>();
    for (const r of rows) {
      if (!r.reference || r.action === t.actions.CANCELLATION) continue;
      byReference.set(r.reference, [...(byReference.get(r.reference) ?? []), r]);
    }
    const columns = t.response.columns;
    const table: string[][] = [columns.map((c) => c.header)];
    const decided: FileAnswer['decided'] = [];
    for (const [reference, persons] of byReference) {
      const rejected = reject !== null && persons.some((p) => reject.test(p.member_name ?? ''));
      decided.push([reference, rejected ? 'REJECTED' : 'APPROVED']);
      for (const p of persons) {
        const id = createHash('sha256')
          .update(`${reference}|${p.relationship}|${p.date_of_birth}`)
          .digest('hex')
          .slice(0, 10)
          .toUpperCase();
        const values: Record<string, string> = {
          reference,
          decision: t.response.decisions[rejected ? 'REJECTED' : 'APPROVED'],
          uhid: rejected ? '' : `${opts.settings.uhid_prefix}${id}`,
          insurer_member_id: rejected ? '' : `M-${id}`,
          rejection_reason: rejected ? opts.settings.rejection_reason : '',
          relationship: p.relationship ?? '',
          date_of_birth: p.date_of_birth ?? '',
        };
        table.push(columns.map((c) => values[c.field] ?? ''));
      }
    }
    return { table: table as SheetTable, decided };
  };

  const timer = setInterval(() => {
    if (closed) return;
    running = running.then(pass).catch((err: unknown) => opts.onError?.(err));
  }, opts.pollMs ?? DEFAULT_POLL_MS);

  return {
    poll: () => (running = running.then(pass)),
    close: async () => {
      closed = true;
      clearInterval(timer);
      await running.catch(() => undefined);
    },
  };
}

/** Written under a hidden name and renamed, as an insurer's upload should be: never read half-written. */
async function writeInto(folder: string, name: string, content: Buffer): Promise<void> {
  await fs.mkdir(folder, { recursive: true });
  const partial = path.join(folder, partialName(name));
  await fs.writeFile(partial, content, { mode: 0o600 });
  await fs.rename(partial, path.join(folder, name));
}

async function readState(file: string | undefined): Promise<string[]> {
  if (!file) return [];
  try {
    const rows = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
    return Array.isArray(rows) ? rows.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

async function writeState(file: string | undefined, stems: string[]): Promise<void> {
  if (file) await fs.writeFile(file, JSON.stringify(stems), { mode: 0o600 });
}
