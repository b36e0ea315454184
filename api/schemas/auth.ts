import { z } from 'zod';
import { SCOPES } from '../../domain/scopes.js';
import { outcome } from './responses.js';

/** Spec 2.1. */
export const tokenPayload = z
  .object({
    access_token: z.string().meta({ description: 'JWT; send as `Authorization: Bearer <access_token>`' }),
    expires_in: z.literal(3600),
    token_type: z.literal('Bearer'),
  })
  .meta({ id: 'Token' });

/** GET /v1/auth/session. */
export const sessionPayload = z
  .object({
    client_id: z.string(),
    scopes: z.array(z.enum(SCOPES)).meta({ description: 'The granted scopes, normalised (D2)' }),
    ...outcome('Token is valid'),
  })
  .meta({ id: 'SessionPayload' });
