import {
  readInsurerBacklog,
  readInsurerEndorsement,
  type BacklogRow,
} from '../../data/insurer-exchange/backlog.js';
import type { InsurerScope } from '../../data/insurer-exchange/scope.js';
import type { CursorCodec, Page, PageRequest } from '../../data/paging.js';
import { looksLikeId } from '../../domain/ids.js';
import { durationMs } from '../../workflows/endorsement/contract.js';

/** The status an insurer's backlog lists: what it has and has not decided yet. */
export const BACKLOG_STATUS = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';

/** GET /v1/insurer/endorsements: one page of what waits for the insurer, oldest first (D5, D14). */
export function insurerBacklogPage(
  scope: InsurerScope,
  cursors: CursorCodec,
  config: { INSURER_SLA_DEFAULT: string },
  page: PageRequest,
): Promise<Page<BacklogRow>> {
  return readInsurerBacklog(
    scope,
    cursors,
    { status: BACKLOG_STATUS, slaDefaultMs: durationMs(config.INSURER_SLA_DEFAULT) },
    page,
  );
}

/**
 * GET /v1/insurer/endorsements/{id}: one endorsement routed to the insurer; undefined for another
 * insurer's, an unknown and a malformed id alike.
 */
export async function insurerEndorsement(
  scope: InsurerScope,
  config: { INSURER_SLA_DEFAULT: string },
  endorsementId: string,
) {
  if (!looksLikeId('endorsement', endorsementId)) return undefined;
  return readInsurerEndorsement(scope, endorsementId, durationMs(config.INSURER_SLA_DEFAULT));
}
