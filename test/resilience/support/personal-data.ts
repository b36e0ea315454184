import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';

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
}

/**
 * Every workflow started since `since` in the namespace, read through the Temporal client: its
 * full event history (inputs, results, signals, updates, activity inputs and failures, search
 * attributes), searched for each needle.
 */
export async function scanHistories(temporal: Client, since: Date, search: string[]): Promise<HistoryScan> {
  const scan: HistoryScan = { workflows: 0, events: 0, bytes: 0, hits: [] };
  const query = `StartTime >= '${since.toISOString()}'`;
  for await (const wf of temporal.workflow.list({ query })) {
    const history = await temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const text = textOf(history);
    scan.workflows++;
    scan.events += history.events?.length ?? 0;
    scan.bytes += text.length;
    for (const needle of search) {
      if (text.includes(needle)) scan.hits.push(`${wf.type} ${wf.workflowId}: ${needle}`);
    }
  }
  return scan;
}
