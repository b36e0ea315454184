import { z } from 'zod';
import { InsurerScope } from '../../data/insurer-exchange/scope.js';
import { INSURER_DECISIONS_SCOPE, INSURER_ENDORSEMENTS_SCOPE } from '../../domain/scopes.js';
import {
  BACKLOG_STATUS,
  insurerBacklogPage,
  insurerEndorsement,
} from '../../usecases/insurer-exchange/backlog.js';
import { submitInsurerDecisions } from '../../usecases/insurer-exchange/decisions.js';
import { notFound } from '../errors.js';
import { cursorsFor, oneDirection, pageQueryFields, pagingFields, withCursorErrors } from '../paging.js';
import { insurerEndorsementSchema, presentInsurerEndorsement } from '../presenters/insurer-endorsement.js';
import { route } from '../route.js';
import { endorsementParams } from '../schemas/endorsements.js';
import { outcome, pagingOut } from '../schemas/responses.js';

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
      'refused: see detail (another outcome came first, not yet submitted, cancelled, not found, or ' +
      'malformed: a text field breaking the text rules, named with its rule)',
  }),
  detail: z.string().meta({ example: 'APPROVED recorded' }),
});
const decisionsPayload = z.object({ results: z.array(itemAnswer) });

const backlogQuery = z
  .object({
    status: z
      .enum([BACKLOG_STATUS], { error: `must be ${BACKLOG_STATUS}` })
      .default(BACKLOG_STATUS)
      .meta({ description: 'What the list holds: the endorsements the insurer has not decided yet' }),
    ...pageQueryFields,
  })
  .superRefine(oneDirection);

const backlogPayload = z.object({
  endorsements: z.array(insurerEndorsementSchema),
  ...pagingOut,
  ...outcome('Endorsements fetched successfully'),
});

const insurerEndorsementPayload = z.object({
  endorsement: insurerEndorsementSchema,
  ...outcome('Endorsement fetched successfully'),
});

/** Another insurer's endorsement and an unknown id get this one answer (D14). */
const endorsementNotFound = () => notFound('Endorsement Not Found');

export const insurerRoutes = [
  route({
    method: 'GET',
    path: '/v1/insurer/endorsements',
    operationId: 'listInsurerEndorsements',
    summary: 'List what waits for the insurer',
    description:
      'D14: the endorsements routed to the calling insurer that it has not decided yet ' +
      '(ENDORSEMENT_STATUS_SENT_TO_INSURER), across every client whose policies name it, oldest first ' +
      '(when each was sent), with what its endorsement file carries and each one’s SLA due date. ' +
      'Keyset paging as D5. Scope `insurer.endorsements`, with an insurer principal’s token.',
    scopes: [INSURER_ENDORSEMENTS_SCOPE],
    principal: 'insurer',
    query: backlogQuery,
    response: backlogPayload,
    handler: async ({ query, auth, em, deps }) => {
      const scope = InsurerScope.of(em, auth.insurerId!);
      const page = await withCursorErrors(
        insurerBacklogPage(scope, cursorsFor(deps.config), deps.config, query),
      );
      return {
        endorsements: page.rows.map(presentInsurerEndorsement),
        ...pagingFields(page),
        message: 'Endorsements fetched successfully',
        success: true as const,
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/insurer/endorsements/:endorsement_id',
    operationId: 'getInsurerEndorsement',
    summary: 'Get an endorsement routed to the insurer',
    description:
      'D14: one endorsement routed to the calling insurer, in any status, as the list shows it. Another ' +
      'insurer’s endorsement and an unknown id answer the same 404. Scope `insurer.endorsements`.',
    scopes: [INSURER_ENDORSEMENTS_SCOPE],
    principal: 'insurer',
    params: endorsementParams,
    response: insurerEndorsementPayload,
    errors: [endorsementNotFound()],
    handler: async ({ params, auth, em, deps }) => {
      const scope = InsurerScope.of(em, auth.insurerId!);
      const row = await insurerEndorsement(scope, deps.config, params.endorsement_id);
      if (!row) throw endorsementNotFound();
      return {
        endorsement: presentInsurerEndorsement(row),
        message: 'Endorsement fetched successfully',
        success: true as const,
      };
    },
  }),
  route({
    method: 'POST',
    path: '/v1/insurer/decisions',
    operationId: 'submitInsurerDecisions',
    summary: "Submit an insurer's decisions",
    description:
      'D14: an insurer answers the endorsements routed to it, up to 500 per call, with a token of an ' +
      'insurer principal (scope `insurer.decisions`, from `/v1/auth/token`). Each item is answered in ' +
      'request order. An endorsement that is not routed to this insurer (another insurer’s, unknown, ' +
      'malformed id) is refused as "not found". A `uhid` or `insurer_member_id` holding control, ' +
      'bidirectional-formatting or invisible characters or starting with =, +, - or @, or a ' +
      '`rejection_reason` holding such characters, refuses that item only: its detail names the field ' +
      'and the rule. Safe to repeat: a repeat answers duplicate.',
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
