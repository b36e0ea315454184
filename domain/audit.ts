/** The kinds of record the audit trail covers. */
export const AUDIT_ENTITIES = ['employee', 'endorsement', 'grant', 'policy_member'] as const;
export type AuditEntity = (typeof AUDIT_ENTITIES)[number];
