import type { EventType } from '../../domain/webhooks/events.js';

/**
 * The transactional outbox, as CTEs to append to the `with` of the statement that makes the change
 * (so the change, its event and its deliveries commit together). One event per row of the CTE named
 * `source`, with columns (client_id, entity_id, to_status, data jsonb); `data` holds ids and
 * statuses only. The event is keyed by (type, entity, new status): a retried activity that
 * writes the same change again records nothing. One pending delivery per active endpoint of the
 * client subscribed to the type. The new deliveries are readable as `outbox_deliveries(id)`.
 * Splice `params` at the fragment's place among the statement's parameters.
 */
export function outboxSql(source: string, type: EventType): { sql: string; params: unknown[] } {
  return {
    sql: `outbox_event as (
       insert into webhook_events (id, client_id, type, dedupe_key, payload)
       select 'evt_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 22), s.client_id, ?::text,
              ?::text || ':' || s.entity_id || ':' || s.to_status, s.data
         from ${source} s
       on conflict (dedupe_key) do nothing
       returning id, client_id, type),
     outbox_deliveries as (
       insert into webhook_deliveries (id, event_id, endpoint_id, client_id)
       select 'dlv_' || replace(gen_random_uuid()::text, '-', ''), e.id, w.id, e.client_id
         from outbox_event e
         join webhook_endpoints w on w.client_id = e.client_id and w.active and e.type = any (w.events)
       returning id)`,
    params: [type, type],
  };
}

/**
 * `data` of an endorsement.status_changed event from a row with id, policy_id, employee_id,
 * old_status, status and rejection_reason (the reason only when the new status is REJECTED).
 */
export const endorsementEventDataSql = (r: string): string =>
  `jsonb_build_object('endorsement_id', ${r}.id, 'policy_id', ${r}.policy_id, 'employee_id', ${r}.employee_id,
     'old_status', ${r}.old_status, 'new_status', ${r}.status)
   || case when ${r}.status = 'ENDORSEMENT_STATUS_REJECTED'
           then jsonb_build_object('rejection_reason', ${r}.rejection_reason) else '{}'::jsonb end`;

/** A timestamptz as ISO 8601 in UTC with milliseconds (the driver hands raw rows back as text). */
export const isoSql = (expr: string): string =>
  `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * `data` of a grant.status_changed event from a row with id, employee_id, policy_id (the requested
 * policy, null for "every active policy"), old_status and status. `request_id` as D9 names it.
 */
export const grantEventDataSql = (r: string): string =>
  `jsonb_build_object('request_id', ${r}.id, 'employee_id', ${r}.employee_id, 'policy_id', ${r}.policy_id,
     'old_status', ${r}.old_status, 'new_status', ${r}.status)`;
