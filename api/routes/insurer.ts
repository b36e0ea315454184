import { z } from 'zod';
import { InsurerScope } from '../../data/insurer-scope.js';
import { INSURER_DECISIONS_SCOPE } from '../../domain/scopes.js';
import { submitInsurerDecisions } from '../../usecases/insurer-decisions.js';
import { route } from '../route.js';

/** D14: at most this many decisions per call. */
export const MAX_DECISIONS = 500;

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

const decisionItem = z.strictObject(
  {
    endorsement_id: z.string({ error: 'must be a string' }).max(64, 'must be at most 64 characters'),
    decision: z.enum(['APPROVED', 'REJECTED'], { error: 'must be APPROVED or REJECTED' }),
    uhid: text(100).optional(),
    insurer_member_id: text(100).optional(),
    rejection_reason: text(1000).optional(),
  },
  { error: 'must be an object' },
);

const decisionsBody = z.strictObject(
  {
    decisions: z
      .array(decisionItem, { error: 'must be an array of decisions' })
      .min(1, 'must contain at least one decision')
      .max(MAX_DECISIONS, `must contain at most ${MAX_DECISIONS} decisions`),
  },
  { error: 'must be an object' },
);

const itemAnswer = z.object({
  endorsement_id: z.string(),
  result: z.enum(['accepted', 'duplicate', 'refused']).meta({
    description:
      'accepted: recorded now; duplicate: the same outcome was already recorded (nothing changes); ' +
      'refused: see detail (another outcome came first, not yet submitted, cancelled, not found)',
  }),
  detail: z.string().meta({ example: 'APPROVED recorded' }),
});
const decisionsPayload = z.object({ results: z.array(itemAnswer) });

export const insurerRoutes = [
  route({
    method: 'POST',
    path: '/v1/insurer/decisions',
    operationId: 'submitInsurerDecisions',
    summary: "Submit an insurer's decisions",
    description:
      'D14: an insurer answers the endorsements routed to it, up to 500 per call, with a token of an ' +
      'insurer principal (scope `insurer.decisions`, from `/v1/auth/token`). Each item is answered in ' +
      'request order. An endorsement that is not routed to this insurer (another insurer’s, unknown, ' +
      'malformed id) is refused as "not found". Safe to repeat: a repeat answers duplicate.',
    scopes: [INSURER_DECISIONS_SCOPE],
    principal: 'insurer',
    body: decisionsBody,
    response: decisionsPayload,
    handler: async ({ body, auth, em, deps }) => {
      const scope = InsurerScope.of(em, auth.insurerId!);
      const items = body.decisions.map(({ endorsement_id, ...fields }) => ({
        endorsementId: endorsement_id,
        decision: fields,
      }));
      return { results: await submitInsurerDecisions(deps, scope, items) };
    },
  }),
];
