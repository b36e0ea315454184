import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { decodeOptionalSinglePayload } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { temporal as proto } from '@temporalio/proto';

/**
 * Personal data seeded for the data-protection test: values found nowhere else, in the forms they
 * could be copied in (a phone number with and without its `+`).
 */
export interface Person {
  employeeCode: string;
  name: string;
  email: string;
  personalEmail: string;
  phone: string;
  personalPhone: string;
  dateOfBirth: string;
  address: string;
  dependentName: string;
  dependentBirth: string;
}

export function person(i: number, codePrefix = 'PD'): Person {
  const tag = randomBytes(3).toString('hex');
  const digits = () => String(Math.floor(1e9 + Math.random() * 8e9));
  return {
    employeeCode: `${codePrefix}-${tag}-${i}`,
    name: `Ottoline Wrenfield ${tag}${i}`,
    email: `ottoline.${tag}${i}@wrenfield.example`,
    personalEmail: `o.wren.${tag}${i}@home.example`,
    phone: `+91${digits()}`,
    personalPhone: `+91${digits()}`,
    dateOfBirth: `1968-0${1 + (i % 9)}-${String(11 + i).padStart(2, '0')}`,
    address: `7 Wrenfield Mews ${tag}${i}, Pune`,
    dependentName: `Peregrine Wrenfield ${tag}${i}`,
    dependentBirth: `1999-1${i % 3}-0${1 + (i % 9)}`,
  };
}

/** The strings to search for; each phone also without its `+`. */
export function needles(people: Person[]): string[] {
  return people.flatMap((p) => [
    p.name,
    p.email,
    p.personalEmail,
    p.phone,
    p.phone.slice(1),
    p.personalPhone,
    p.personalPhone.slice(1),
    p.dateOfBirth,
    p.address,
    p.dependentName,
    p.dependentBirth,
  ]);
}

/** Text of a value with every byte array decoded as UTF-8 (payloads, failure details). */
export function textOf(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : typeof v === 'bigint' ? String(v) : v,
  );
}

export interface HistoryScan {
  workflows: number;
  events: number;
  bytes: number;
  hits: string[];
  /** The user metadata read, decoded: static summaries and details, timer and activity summaries, current details. */
  userMetadata: string[];
}

/**
 * What the Web UI shows of one workflow beyond its payloads, decoded through the client's codec:
 * its static summary and details, every event's summary (activities, timers, children) and its
 * current details (the SDK's metadata query; a workflow nobody can answer for has none).
 */
async function userMetadataOf(
  temporal: Client,
  wf: { workflowId: string; runId: string },
  history: proto.api.history.v1.IHistory,
): Promise<string[]> {
  const converter = temporal.options.loadedDataConverter;
  const decode = (p: proto.api.common.v1.IPayload | null | undefined) =>
    decodeOptionalSinglePayload<string>(converter, p);
  const handle = temporal.workflow.getHandle(wf.workflowId, wf.runId);
  const described = await handle.describe();
  const texts: (string | null | undefined)[] = [
    await described.staticSummary(),
    await described.staticDetails(),
  ];
  for (const event of history.events ?? []) {
    if (event.userMetadata)
      texts.push(await decode(event.userMetadata.summary), await decode(event.userMetadata.details));
  }
  const metadata = await handle
    .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
    .catch(() => undefined);
  texts.push(metadata?.currentDetails);
  return texts.filter((t): t is string => typeof t === 'string' && t.length > 0);
}

/**
 * Every workflow started since `since` in the namespace, read through the Temporal client: its
 * full event history (inputs, results, signals, updates, activity inputs and failures, search
 * attributes) and its decoded user metadata (what the Web UI shows), searched for each needle.
 */
export async function scanHistories(temporal: Client, since: Date, search: string[]): Promise<HistoryScan> {
  const scan: HistoryScan = { workflows: 0, events: 0, bytes: 0, hits: [], userMetadata: [] };
  const query = `StartTime >= '${since.toISOString()}'`;
  for await (const wf of temporal.workflow.list({ query })) {
    const history = await temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const metadata = await userMetadataOf(temporal, wf, history);
    scan.userMetadata.push(...metadata);
    const text = `${textOf(history)}\n${metadata.join('\n')}`;
    scan.workflows++;
    scan.events += history.events?.length ?? 0;
    scan.bytes += text.length;
    for (const needle of search) {
      if (text.includes(needle)) scan.hits.push(`${wf.type} ${wf.workflowId}: ${needle}`);
    }
  }
  return scan;
}
