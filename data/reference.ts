/**
 * Reference data (insurers, TPAs, products: D12, one copy per client) is read as display names beside
 * a policy. These joins hang off a policy aliased `pol`; every joined row belongs to the policy's own
 * client (D1), so a policy never shows another tenant's names.
 */
export const REFERENCE_JOINS = `join insurers i on i.id = pol.insurer_id and i.client_id = pol.client_id
  join products pr on pr.id = pol.product_id and pr.client_id = pol.client_id
  join tpas t on t.id = pol.tpa_id and t.client_id = pol.client_id`;

/** The reference joins and the client's own name (`c`). */
export const REFERENCE_AND_CLIENT_JOINS = `${REFERENCE_JOINS}
  join clients c on c.id = pol.client_id`;
