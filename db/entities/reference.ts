import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { INSURER_ADAPTERS } from '../../domain/enums.js';
import { tenantFilter } from './tenant.js';

/** Reference data loaded by the admin command (D12); each client has its own copies. */
export const InsurerSchema = defineEntity({
  name: 'Insurer',
  tableName: 'insurers',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    code: p.string(),
    name: p.string(),
    logoUrl: p.string(),
    networkHospitalUrl: p.string().nullable(),
    daycareUrl: p.string().nullable(),
    adapter: p.enum([...INSURER_ADAPTERS]).default('simulated'),
  },
});
export type Insurer = InferEntity<typeof InsurerSchema>;

export const TpaSchema = defineEntity({
  name: 'Tpa',
  tableName: 'tpas',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    code: p.string(),
    name: p.string(),
  },
});
export type Tpa = InferEntity<typeof TpaSchema>;

export const ProductSchema = defineEntity({
  name: 'Product',
  tableName: 'products',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    insurerId: p.string(),
    code: p.string(),
    name: p.string(),
    /** e.g. Group Health, Group Term Life, Group Personal Accident */
    category: p.string(),
  },
});
export type Product = InferEntity<typeof ProductSchema>;
