import { Migration } from '@mikro-orm/migrations';
import { SYSTEM_SETTING } from '../roles.js';

/** The platform's partners (D12, amended): one row per code, shared by every client. */
export const PARTNER_TABLES = ['insurers', 'tpas', 'products'] as const;

/** What must agree between two clients' copies of one code for them to be folded into one row. */
const COMPARED = {
  insurers: ['name', 'logo_url', 'network_hospital_url', 'daycare_url', 'adapter', 'adapter_settings'],
  tpas: ['name'],
  products: ['name', 'category', 'insurer_code'],
} as const;

/** The comparable rows of each table: a product's insurer is compared by code (its ids differ per client). */
const SOURCE = {
  insurers: 'insurers',
  tpas: 'tpas',
  products: '(select pr.*, i.code as insurer_code from products pr join insurers i on i.id = pr.insurer_id)',
} as const;

const KIND = { insurers: 'insurer', tpas: 'tpa', products: 'product' } as const;

/** The codes whose copies differ, each with the settings that differ: `insurer NIVA (adapter_settings, name)`. */
function conflictsSql(table: keyof typeof COMPARED): string {
  const differing = COMPARED[table]
    .map((col) => `case when count(distinct coalesce(to_jsonb(${col}), 'null'::jsonb)) > 1 then '${col}' end`)
    .join(', ');
  return `select '${KIND[table]} ' || code || ' (' || concat_ws(', ', ${differing}) || ')' as conflict
    from ${SOURCE[table]} s group by code
   having ${COMPARED[table].map((col) => `count(distinct coalesce(to_jsonb(${col}), 'null'::jsonb)) > 1`).join(' or ')}`;
}

/** Each row's id and the id its code keeps: the first client's copy (by client id, then id). */
const kept = (table: string) =>
  `(select id, first_value(id) over (partition by code order by client_id, id) as keep from ${table})`;

const systemOnly = `(select current_setting('${SYSTEM_SETTING}', true)) = 'on'`;

/**
 * The statements that fold every client's copies of a partner into one row per code. Refuses, and
 * changes nothing, when two copies of a code differ: the exception names each such code and the
 * settings that differ, and the migration's transaction rolls back. Exported for the test that runs
 * it on a database with prepared copies.
 */
export function foldPartnerCopiesSql(): string {
  return `
do $$
declare
  conflicts text;
begin
  select string_agg(conflict, '; ' order by conflict) into conflicts from (
    ${(Object.keys(COMPARED) as (keyof typeof COMPARED)[]).map(conflictsSql).join('\n    union all ')}
  ) c;
  if conflicts is not null then
    raise exception 'partners differ between clients: %; make each code''s copies identical (admin load), then migrate again', conflicts;
  end if;
end
$$;
update products pr set insurer_id = m.keep from ${kept('insurers')} m where pr.insurer_id = m.id and m.id <> m.keep;
update policies p set insurer_id = m.keep from ${kept('insurers')} m where p.insurer_id = m.id and m.id <> m.keep;
update insurer_principals ip set insurer_id = m.keep from ${kept('insurers')} m
 where ip.insurer_id = m.id and m.id <> m.keep;
update policies p set product_id = m.keep from ${kept('products')} m where p.product_id = m.id and m.id <> m.keep;
update policies p set tpa_id = m.keep from ${kept('tpas')} m where p.tpa_id = m.id and m.id <> m.keep;
delete from products where id in (select id from ${kept('products')} m where m.id <> m.keep);
delete from tpas where id in (select id from ${kept('tpas')} m where m.id <> m.keep);
delete from insurers where id in (select id from ${kept('insurers')} m where m.id <> m.keep);
${PARTNER_TABLES.map(
  (t) => `drop policy tenant_isolation on ${t};
alter table ${t} drop constraint ${t}_client_id_code_key;
alter table ${t} drop column client_id;
alter table ${t} add constraint ${t}_code_key unique (code);
create policy partners_read on ${t} for select using (true);
create policy partners_write on ${t} for all using (${systemOnly}) with check (${systemOnly});`,
).join('\n')}
`;
}

/**
 * D12 (amended): insurers, TPAs and products are the platform's partners, not a client's. Each
 * client held its own copy of every one (unique per client and code); this folds the copies into one
 * row per code (policies, products and insurer principals re-pointed to the kept row) and drops
 * client_id. Copies that differ are not guessed between: the migration refuses, naming them.
 *
 * Row-level security stays on, with new policies: every tenant reads every partner (a policy shows
 * its insurer's name whatever its client), and only a statement with the system setting writes one
 * (the operator's load, never a tenant's request). Tenant tables keep their tenant_isolation policy.
 */
export class Migration0024PlatformPartners extends Migration {
  override up(): void {
    this.addSql(foldPartnerCopiesSql());
  }

  override down(): void {
    // Which client each folded copy belonged to is gone: there is nothing to split the rows back into.
    throw new Error('0024-platform-partners folds per-client copies into one row and cannot be undone');
  }
}
