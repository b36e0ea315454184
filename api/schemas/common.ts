/** Request shapes shared with the operator commands live in domain/schemas/. */
export * from '../../domain/schemas/common.js';
