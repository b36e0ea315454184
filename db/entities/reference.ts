import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { INSURER_ADAPTERS } from '../../domain/enums.js';
import { clientRef } from './client.js';
import { ref, text } from './columns.js';
import { tenantFilter } from './tenant.js';

/** Reference data loaded by the admin command (D12); each client has its own copies. */
export const InsurerSchema = defineEntity({
  name: 'Insurer',
  tableName: 'insurers',
  filters: tenantFilter,
  uniques: [{ name: 'insurers_client_id_code_key', properties: ['clientId', 'code'] }],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    code: text(),
    name: text(),
    logoUrl: text(),
    networkHospitalUrl: text().nullable(),
    daycareUrl: text().nullable(),
    adapter: p
      .enum([...INSURER_ADAPTERS])
      .columnType('text')
      .default('simulated'),
    /** The adapter's settings in the load file's spelling (domain/insurer-adapter-settings.ts). */
    adapterSettings: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
  },
});
export type Insurer = InferEntity<typeof InsurerSchema>;

export const TpaSchema = defineEntity({
  name: 'Tpa',
  tableName: 'tpas',
  filters: tenantFilter,
  uniques: [{ name: 'tpas_client_id_code_key', properties: ['clientId', 'code'] }],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    code: text(),
    name: text(),
  },
});
export type Tpa = InferEntity<typeof TpaSchema>;

export const ProductSchema = defineEntity({
  name: 'Product',
  tableName: 'products',
  filters: tenantFilter,
  uniques: [{ name: 'products_client_id_code_key', properties: ['clientId', 'code'] }],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    insurerId: ref(InsurerSchema, 'insurer_id'),
    code: text(),
    name: text(),
    /** e.g. Group Health, Group Term Life, Group Personal Accident */
    category: text(),
  },
});
export type Product = InferEntity<typeof ProductSchema>;
