import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { INSURER_ADAPTERS } from '../../domain/enums.js';
import { ref, text } from './columns.js';

/**
 * The platform's partners (D12, amended): loaded once by the admin command, one row per code, named
 * by code in every client's load file. No client id and no tenant filter: every tenant reads them,
 * and row-level security lets only system-scoped statements write them (migration 0024).
 */
export const InsurerSchema = defineEntity({
  name: 'Insurer',
  tableName: 'insurers',
  uniques: [{ name: 'insurers_code_key', properties: ['code'] }],
  properties: {
    id: text().primary(),
    code: text(),
    name: text(),
    logoUrl: text(),
    networkHospitalUrl: text().nullable(),
    daycareUrl: text().nullable(),
    adapter: p
      .enum([...INSURER_ADAPTERS])
      .columnType('text')
      .default('simulated'),
    /** The adapter's settings in the load file's spelling (domain/insurer-exchange/adapter-settings.ts). */
    adapterSettings: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
  },
});
export type Insurer = InferEntity<typeof InsurerSchema>;

export const TpaSchema = defineEntity({
  name: 'Tpa',
  tableName: 'tpas',
  uniques: [{ name: 'tpas_code_key', properties: ['code'] }],
  properties: {
    id: text().primary(),
    code: text(),
    name: text(),
  },
});
export type Tpa = InferEntity<typeof TpaSchema>;

export const ProductSchema = defineEntity({
  name: 'Product',
  tableName: 'products',
  uniques: [{ name: 'products_code_key', properties: ['code'] }],
  properties: {
    id: text().primary(),
    insurerId: ref(InsurerSchema, 'insurer_id'),
    code: text(),
    name: text(),
    /** e.g. Group Health, Group Term Life, Group Personal Accident */
    category: text(),
  },
});
export type Product = InferEntity<typeof ProductSchema>;
