import type { InsurerAdapterName } from '../../domain/enums.js';
import type { InsurerAssignment } from '../../domain/insurer-exchange/decisions.js';
import { endorsementEventDataSql, isoSql, outboxSql } from '../webhooks/outbox.js';
import type { SystemScope } from '../scope.js';
import { prepared } from '../sql.js';

/** Where an endorsement goes after review (D14): its insurer's adapter, and whether it now waits. */
export interface InsurerRoute {
  adapter: InsurerAdapterName;
  insurerCode: string;
  /** A file insurer's endorsement, still PENDING, now (or already) waiting for the cut-off. */
  queued: boolean;
}

/** routeToInsurer's statement (prepared: every endorsement's review sends it). */
const routeStatement = prepared(
  'endorsement_route',
  `with route as (
       select e.id, i.adapter, i.code
         from endorsements e join policies p on p.id = e.policy_id join insurers i on i.id = p.insurer_id
        where e.id = ?),
     queued as (
       update endorsements e set cut_off_queued_at = coalesce(e.cut_off_queued_at, now())
         from route r
        where e.id = r.id and r.adapter = 'file' and e.status = 'ENDORSEMENT_STATUS_PENDING'
        returning e.id)
     select r.adapter, r.code as insurer_code, exists (select 1 from queued) as queued from route r`,
);

/**
 * Reads the endorsement's insurer adapter and, for a `file` insurer, marks it reviewed and waiting
 * for the insurer's next cut-off, in one statement. Idempotent: the first mark stays, so a retried
 * activity never moves the endorsement to a later cut-off. Undefined for an unknown id.
 */
export async function routeToInsurer(system: SystemScope, id: string): Promise<InsurerRoute | undefined> {
  const [row] = await system.sql<{ adapter: InsurerAdapterName; insurer_code: string; queued: boolean }>(
    routeStatement([id]),
  );
  return row && { adapter: row.adapter, insurerCode: row.insurer_code, queued: row.queued };
}

/**
 * D7 + D14: an endorsement cancelled after its file insurer received it (a cut-off claimed and
 * delivered it) waits for the next cut-off, whose file withdraws it. Idempotent: the first mark
 * stays. False when the row is not a cancelled, delivered file endorsement (nothing to withdraw).
 */
export async function queueWithdrawal(system: SystemScope, id: string): Promise<boolean> {
  const rows = await system.sql<{ id: string }>(
    `update endorsements set withdrawal_queued_at = coalesce(withdrawal_queued_at, now())
      where id = ? and status = 'ENDORSEMENT_STATUS_CANCELLED' and cut_off_at is not null
      returning id`,
    [id],
  );
  return rows.length > 0;
}

/** A file insurer (one platform row per code, D12): its stored settings (read back through the schema above). */
export interface FileInsurerRow {
  insurerId: string;
  code: string;
  adapterSettings: unknown;
}

/** Every `file` insurer, by code. `code` narrows to that insurer (none when it is not a file insurer). */
export async function listFileInsurers(system: SystemScope, code?: string): Promise<FileInsurerRow[]> {
  return system.sql<FileInsurerRow>(
    `select id as "insurerId", code, adapter_settings as "adapterSettings"
       from insurers where adapter = 'file' ${code === undefined ? '' : 'and code = ?'}
      order by code`,
    code === undefined ? [] : [code],
  );
}

/** What a cut-off's bulk mark did. */
export interface CutOffMark {
  /** Moved PENDING -> SENT_TO_INSURER now. */
  moved: string[];
  /** Already SENT_TO_INSURER (an earlier attempt of this mark committed): to be told again. */
  already: string[];
  /** Webhook deliveries the moved rows' events wrote, to start after the commit. */
  deliveries: string[];
  /** Withdrawals this cut-off's files carried, now (or already) recorded as delivered. */
  withdrawn: string[];
  /**
   * Who has each endorsement told (moved and already) and since when, by id: its workflow starts the
   * insurer SLA's watch from this instead of reading it back, one database read and one local
   * activity fewer per endorsement.
   */
  assignments: Record<string, InsurerAssignment>;
}

/**
 * D14: the endorsements a cut-off delivered move PENDING -> SENT_TO_INSURER, each with its audit
 * entry and its `endorsement.status_changed` event (and deliveries): ONE statement for the whole
 * cut-off (5,000 rows are one round trip, atomic). Only PENDING rows claimed by this cut-off move:
 * one cancelled after the listing stays CANCELLED (its row is in the delivered file; the insurer's
 * answer for it is refused as "cancelled") and is queued for withdrawal by the next cut-off. The
 * withdrawals the files carried (`withdrawalIds`) are recorded as delivered, with an audit entry. Idempotent: a retry moves nothing, reports the rows it
 * already moved, and the events' dedupe keys (the same as a single transition's) record nothing new.
 * Rows are locked in id order, so it never deadlocks with another mark; a cancel locks one row.
 */
export async function markCutOffDelivered(
  system: SystemScope,
  q: { cutOff: Date; endorsementIds: readonly string[]; withdrawalIds?: readonly string[] },
): Promise<CutOffMark> {
  const withdrawalIds = q.withdrawalIds ?? [];
  if (q.endorsementIds.length + withdrawalIds.length === 0)
    return { moved: [], already: [], deliveries: [], withdrawn: [], assignments: {} };
  const outbox = outboxSql('change', 'endorsement.status_changed');
  const [row] = await system.sql<CutOffMark>(
    `with before as (
       select id, status, policy_id, sent_to_insurer_at from endorsements
        where id in (select jsonb_array_elements_text(?::jsonb)) and cut_off_at = ?
        order by id for update),
     moved as (
       update endorsements e set status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER', updated_at = now(),
              sent_to_insurer_at = now()
         from before b
        where e.id = b.id and e.status = 'ENDORSEMENT_STATUS_PENDING'
        returning e.id, e.client_id, e.policy_id, e.employee_id, b.status as old_status, e.status,
                  e.rejection_reason, e.sent_to_insurer_at),
     told as (
       select id, policy_id, sent_to_insurer_at from moved
       union all
       select id, policy_id, sent_to_insurer_at from before
        where status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER'),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields)
       select client_id, 'endorsement', id, 'sent_to_insurer', '{status}'::text[] from moved),
     cancelled_meanwhile as (
       update endorsements e set withdrawal_queued_at = coalesce(e.withdrawal_queued_at, now())
         from before b where e.id = b.id and b.status = 'ENDORSEMENT_STATUS_CANCELLED'
        returning e.id),
     withdrawals as (
       select id, client_id, withdrawal_sent_at from endorsements
        where id in (select jsonb_array_elements_text(?::jsonb)) and withdrawal_cut_off_at = ?
        order by id for update),
     withdrawn as (
       update endorsements e set withdrawal_sent_at = now()
         from withdrawals w where e.id = w.id and w.withdrawal_sent_at is null
        returning e.id, e.client_id),
     withdrawal_audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields)
       select client_id, 'endorsement', id, 'withdrawal_sent', '{withdrawal_sent_at}'::text[] from withdrawn),
     change as (
       select m.client_id, m.id as entity_id, m.status as to_status, ${endorsementEventDataSql('m')} as data
         from moved m),
     ${outbox.sql}
     select array(select id from moved order by id) as moved,
            array(select id from before where status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER' order by id)
              as already,
            array(select id from outbox_deliveries) as deliveries,
            array(select id from withdrawals order by id) as withdrawn,
            (select coalesce(jsonb_object_agg(t.id, jsonb_build_object(
                      'insurerId', p.insurer_id,
                      'submittedAt', ${isoSql('t.sent_to_insurer_at')},
                      'slaDays', (i.adapter_settings->>'sla_days')::int)), '{}'::jsonb)
               from told t join policies p on p.id = t.policy_id join insurers i on i.id = p.insurer_id)
              as assignments`,
    [JSON.stringify(q.endorsementIds), q.cutOff, JSON.stringify(withdrawalIds), q.cutOff, ...outbox.params],
  );
  return row ?? { moved: [], already: [], deliveries: [], withdrawn: [], assignments: {} };
}

/**
 * Gives back the claim of a cut-off's endorsements whose file could not be delivered for good (our
 * settings are wrong: host key, credentials, folder), so the next cut-off after the fix carries them.
 * Only rows still PENDING and claimed by this cut-off, and withdrawals it claimed and did not
 * deliver; idempotent. Returns how many were released.
 */
export async function releaseCutOffClaim(
  system: SystemScope,
  q: { cutOff: Date; endorsementIds: readonly string[]; withdrawalIds?: readonly string[] },
): Promise<number> {
  const ids = [...q.endorsementIds, ...(q.withdrawalIds ?? [])];
  if (ids.length === 0) return 0;
  const rows = await system.sql<{ id: string }>(
    `with additions as (
       update endorsements set cut_off_at = null
        where id in (select jsonb_array_elements_text(?::jsonb)) and cut_off_at = ?
          and status = 'ENDORSEMENT_STATUS_PENDING'
        returning id),
     withdrawals as (
       update endorsements set withdrawal_cut_off_at = null
        where id in (select jsonb_array_elements_text(?::jsonb)) and withdrawal_cut_off_at = ?
          and withdrawal_sent_at is null
        returning id)
     select id from additions union all select id from withdrawals`,
    [JSON.stringify(ids), q.cutOff, JSON.stringify(ids), q.cutOff],
  );
  return rows.length;
}

/** The adapter of the insurer of a code, as a list (empty: no such insurer code). */
export async function adaptersOfInsurerCode(
  system: SystemScope,
  code: string,
): Promise<InsurerAdapterName[]> {
  const rows = await system.sql<{ adapter: InsurerAdapterName }>(
    'select distinct adapter from insurers where code = ? order by adapter',
    [code],
  );
  return rows.map((r) => r.adapter);
}

/** Every insurer code that uses another adapter than `file` (its Schedule, if any, must go). */
export async function listNonFileInsurerCodes(system: SystemScope): Promise<string[]> {
  const rows = await system.sql<{ code: string }>(
    `select code from insurers where adapter <> 'file' order by code`,
  );
  return rows.map((r) => r.code);
}
