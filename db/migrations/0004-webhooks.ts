import { Migration } from '@mikro-orm/migrations';

/**
 * Signed webhooks through a transactional outbox, and what the audit API reads.
 *
 * - webhook_endpoints: a client's receivers. `secret` signs deliveries, so it is stored as issued
 *   (it must be usable to sign): read access to this table is access to every client's signing
 *   secret. It is cleared when the endpoint is removed.
 * - webhook_events: one row per status change, written in the same statement or transaction as
 *   the change. `dedupe_key` (type, entity, new status) makes a retried activity's write a no-op.
 *   `payload` holds ids and statuses only.
 * - webhook_deliveries: one per event and subscribed endpoint, written with the event; each is
 *   driven by its own workflow (`webhook-<id>`). `started_at` null = no workflow yet (the sweeper's
 *   work list).
 * - webhook_delivery_attempts: every POST with its response code and latency (admin command).
 * - audit_events.public_id: an opaque id for the API (the bigserial would tell a client how much
 *   every other client does); the (client, entity, id) index pages one entity kind in order.
 */
export class Migration0004Webhooks extends Migration {
  override up(): void {
    this.addSql(`
create table webhook_endpoints (
  id text primary key,
  client_id text not null references clients(id),
  url text not null,
  events text[] not null,
  secret text,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  removed_at timestamptz,
  constraint webhook_endpoints_secret check (active = (secret is not null))
);
create index webhook_endpoints_client on webhook_endpoints (client_id) where active;

create table webhook_events (
  id text primary key,
  client_id text not null references clients(id),
  type text not null,
  dedupe_key text not null unique,
  payload jsonb not null,
  created_at timestamptz not null default now()
);

create table webhook_deliveries (
  id text primary key,
  event_id text not null references webhook_events(id) on delete cascade,
  endpoint_id text not null references webhook_endpoints(id),
  client_id text not null references clients(id),
  status text not null default 'pending'
    check (status in ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer not null default 0,
  last_status_code integer,
  last_latency_ms integer,
  last_error text,
  started_at timestamptz,
  delivered_at timestamptz,
  next_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (event_id, endpoint_id)
);
create index webhook_deliveries_unstarted on webhook_deliveries (created_at)
  where status = 'pending' and started_at is null;
create index webhook_deliveries_client on webhook_deliveries (client_id, created_at);
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id) where status = 'pending';

create table webhook_delivery_attempts (
  delivery_id text not null references webhook_deliveries(id) on delete cascade,
  attempt integer not null,
  status_code integer,
  latency_ms integer not null,
  error text,
  attempted_at timestamptz not null default now(),
  primary key (delivery_id, attempt)
);

alter table audit_events
  add column public_id text not null default ('aud_' || replace(gen_random_uuid()::text, '-', ''));
create index audit_events_kind on audit_events (client_id, entity, id);
`);
  }
}
