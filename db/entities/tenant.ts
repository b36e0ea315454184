/**
 * Tenant isolation (D1) lives here: every tenant-owned entity carries this filter, on by default.
 * A query through an EntityManager that has not been given a client id fails instead of leaking.
 */
export const TENANT_FILTER = 'tenant';

export const tenantFilter = {
  [TENANT_FILTER]: {
    name: TENANT_FILTER,
    cond: (args: { clientId?: string }) => {
      if (!args?.clientId) throw new Error('tenant filter used without a clientId');
      return { clientId: args.clientId };
    },
    default: true,
  },
};
