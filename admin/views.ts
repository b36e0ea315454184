import {
  AwaitingFunds,
  EndorsementSlaBreached,
  EndorsementStatus,
  EndorsementStuck,
  InsurerId,
  SubmittedAt,
} from '../workflows/search-attributes.js';
import { ENDORSEMENT_WORKFLOW } from '../workflows/endorsement/contract.js';

/** One of the operator's saved queries: its name, the visibility query, and the Web UI list it opens. */
export interface OperatorView {
  view: string;
  query: string;
  web_ui: string;
}

const quote = (value: string) => `'${value.replace(/'/g, "\\'")}'`;
const running = `WorkflowType = ${quote(ENDORSEMENT_WORKFLOW)} AND ExecutionStatus = 'Running'`;

/**
 * The operator's triage queries over running endorsements, as links into the Web UI's workflow list.
 * The UI keeps saved views and columns per browser, so the service cannot install them; `ops views`
 * prints these instead, for the stack's own UI address. The insurer backlog needs an insurer id;
 * `olderThan` keeps only what the insurer has had longer than that.
 */
export function operatorViews(opts: {
  uiBase: string;
  namespace: string;
  insurerId?: string;
  olderThanMs?: number;
  now: Date;
}): OperatorView[] {
  const views: [string, string][] = [
    ['stuck', `${running} AND ${EndorsementStuck.name} = true`],
    ['sla-breached', `${running} AND ${EndorsementSlaBreached.name} = true`],
    ['awaiting-funds', `${running} AND ${AwaitingFunds.name} = true`],
  ];
  if (opts.insurerId) {
    const before = new Date(opts.now.getTime() - (opts.olderThanMs ?? 0)).toISOString();
    views.push([
      'insurer-backlog',
      `${running} AND ${InsurerId.name} = ${quote(opts.insurerId)} AND ` +
        `${EndorsementStatus.name} = 'ENDORSEMENT_STATUS_SENT_TO_INSURER' AND ${SubmittedAt.name} < ${quote(before)}`,
    ]);
  }
  const list = `${opts.uiBase.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(opts.namespace)}/workflows`;
  return views.map(([view, query]) => ({
    view,
    query,
    web_ui: `${list}?query=${encodeURIComponent(query)}`,
  }));
}
