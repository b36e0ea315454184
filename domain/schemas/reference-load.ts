import type { EligibilityRules } from '../dependents/eligibility.js';
import { z } from 'zod';
import { COVERAGE_TYPES, POLICY_STATUSES, POLICY_TYPES } from '../enums.js';
import {
  apiAdapterSettings,
  fileAdapterSettings,
  manualAdapterSettings,
  simulatedAdapterSettings,
} from '../insurer-exchange/adapter-settings.js';
import { calendarDate, requiredText } from './common.js';
import { createDependentBody, createEmployeeBody } from './employees.js';

const money = z
  .union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d{1,2})?$/)])
  .transform((v) => Number(v).toFixed(2));
const url = z.url();

const insurerFields = {
  code: requiredText(32),
  name: requiredText(200),
  logo_url: url,
  network_hospital_url: url.optional(),
  daycare_url: url.optional(),
};

/** An insurer names its adapter (default `simulated`) and that adapter's settings, checked whole (D14). */
const insurer = z.preprocess(
  (v) => (v && typeof v === 'object' && !('adapter' in v) ? { ...v, adapter: 'simulated' } : v),
  z.discriminatedUnion(
    'adapter',
    [
      z.strictObject({
        ...insurerFields,
        adapter: z.literal('simulated'),
        adapter_settings: simulatedAdapterSettings.prefault({}),
      }),
      z.strictObject({
        ...insurerFields,
        adapter: z.literal('manual'),
        adapter_settings: manualAdapterSettings.prefault({}),
      }),
      z.strictObject({
        ...insurerFields,
        adapter: z.literal('file'),
        adapter_settings: fileAdapterSettings.prefault({}),
      }),
      z.strictObject({ ...insurerFields, adapter: z.literal('api'), adapter_settings: apiAdapterSettings }),
    ],
    { error: 'must be one of simulated, manual, file, api' },
  ),
);

/** The reference-data file (D12), validated before anything is written. */
const age = z.number().int().min(0).max(120);

/** D16: a policy's overrides of the dependent eligibility defaults; each field optional. */
const eligibility = z.strictObject({
  life_event_window_days: z.number().int().min(0).max(366).optional(),
  mid_term_window: z
    .strictObject({ from: calendarDate, to: calendarDate })
    .refine((w) => w.from <= w.to, { message: 'mid_term_window.from must not be after to' })
    .optional(),
  child_max_age: age.optional(),
  parent_max_age: age.optional(),
  max_children: z.number().int().min(0).max(20).optional(),
  parents_with_parents_in_law: z.boolean().optional(),
});

/** The stored overrides, in the domain's names; absent fields keep D16's defaults. */
function eligibilityOverrides(e: z.output<typeof eligibility>): Partial<EligibilityRules> {
  const overrides: Partial<EligibilityRules> = {
    lifeEventWindowDays: e.life_event_window_days,
    midTermWindow: e.mid_term_window,
    childMaxAge: e.child_max_age,
    parentMaxAge: e.parent_max_age,
    maxChildren: e.max_children,
    parentsWithParentsInLaw: e.parents_with_parents_in_law,
  };
  return Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
}

export const loadFileSchema = z.strictObject({
  insurers: z.array(insurer).default([]),
  tpas: z.array(z.strictObject({ code: requiredText(32), name: requiredText(200) })).default([]),
  products: z
    .array(
      z.strictObject({
        code: requiredText(32),
        name: requiredText(200),
        category: requiredText(100),
        insurer: requiredText(32),
      }),
    )
    .default([]),
  policies: z
    .array(
      z
        .strictObject({
          policy_number: requiredText(64),
          insurer: requiredText(32),
          product: requiredText(32),
          tpa: requiredText(32),
          net_premium: money,
          gross_premium: money,
          coverage_type: z.enum(COVERAGE_TYPES),
          type: z.enum(POLICY_TYPES),
          status: z.enum(POLICY_STATUSES),
          start_date: calendarDate,
          end_date: calendarDate,
          slabs: z.array(z.strictObject({ sum_insured: money, annual_premium: money })).min(1),
          default_sum_insured: money.optional(),
          cd_balance: money.default('0.00'),
          /** The low-balance threshold (D15); absent: 10 % of the gross premium, or the one set before. */
          cd_low_threshold: money.optional(),
          inclusions: z.string().default(''),
          exclusions: z.string().default(''),
          terms_conditions: z.string().default(''),
          policy_document_url: z.string().default(''),
          network_hospital_url: url.optional(),
          daycare_url: url.optional(),
          eligibility: eligibility.default({}).transform(eligibilityOverrides),
        })
        .refine((p) => p.start_date < p.end_date, { message: 'start_date must be before end_date' })
        .refine(
          (p) => !p.default_sum_insured || p.slabs.some((s) => s.sum_insured === p.default_sum_insured),
          {
            message: 'default_sum_insured must be one of the slabs',
          },
        ),
    )
    .default([]),
  employees: z
    .array(createEmployeeBody.extend({ dependents: z.array(createDependentBody).default([]) }))
    .default([]),
});
export type LoadFile = z.output<typeof loadFileSchema>;
