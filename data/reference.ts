/**
 * The platform's partners (insurers, TPAs, products: D12, one row per code, shared by every client)
 * are read as display names beside a policy. These joins hang off a policy aliased `pol`; the policy
 * is the tenant's row, and the partners it names are readable by every tenant.
 */
export const REFERENCE_JOINS = `join insurers i on i.id = pol.insurer_id
  join products pr on pr.id = pol.product_id
  join tpas t on t.id = pol.tpa_id`;

/** The reference joins and the client's own name (`c`). */
export const REFERENCE_AND_CLIENT_JOINS = `${REFERENCE_JOINS}
  join clients c on c.id = pol.client_id`;
