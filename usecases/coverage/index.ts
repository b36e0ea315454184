import {
  findCoverage,
  findEmployeeClientAcrossTenants,
  findHealthCard,
  findUpcomingCover,
  type CoverageRow,
  type UpcomingCover,
} from '../../data/coverage.js';
import { TenantScope, type SystemScope } from '../../data/scope.js';
import { healthCardFileName } from '../../domain/health-card.js';
import { looksLikeId } from '../../domain/ids.js';
import { renderHealthCard } from './health-card.js';
import { linkSigner } from './signed-links.js';

/** The health card's path; this exact string, with the expiry, is what the link's HMAC covers (D10). */
const healthCardPath = (employeeId: string, policyId: string) =>
  `/v1/policy/coverage/${employeeId}/health-card/${policyId}.pdf`;

/** What a health-card link is bound to besides its path and expiry. */
const linkBinding = (secretVersion: number) => `client-secret-version:${secretVersion}`;

export interface LinkConfig {
  /** The key links are signed with (LINK_SIGNING_KEY). */
  signingKey: string;
  /** The service's public base URL, which a link starts with. */
  baseUrl: string;
}

export type CoverageLookup =
  | { outcome: 'unknown_employee' }
  | { outcome: 'not_covered'; hint: string }
  | { outcome: 'covered'; entries: { coverage: CoverageRow; pdfUrl: string }[] };

/** What a client reads beside "Employee Not Covered": the cover on its way, if any. */
function notCoveredHint(upcoming: UpcomingCover, day: string): string {
  if (upcoming?.kind === 'starts')
    return `no cover today (${day}); cover on policy ${upcoming.policy_id} starts ${upcoming.coverage_start_date}`;
  if (upcoming?.kind === 'open_addition')
    return `no cover today (${day}); ADDITION ${upcoming.endorsement_id} is ${upcoming.status}: cover shows once the insurer approves it`;
  return `no cover today (${day})`;
}

/**
 * Spec 4.11 / D10: the policies covering the client's employee today, each with a health-card link
 * signed now, valid an hour, bound to the client's current secret version (a rotation ends it).
 */
export async function coverageOf(
  scope: TenantScope,
  employeeId: string,
  at: { today: string; now: Date },
  link: LinkConfig & { secretVersion: number },
): Promise<CoverageLookup> {
  if (!looksLikeId('employee', employeeId)) return { outcome: 'unknown_employee' };
  const found = await findCoverage(scope, employeeId, at.today);
  if (!found.employeeFound) return { outcome: 'unknown_employee' };
  if (found.entries.length === 0) {
    return {
      outcome: 'not_covered',
      hint: notCoveredHint(await findUpcomingCover(scope, employeeId, at.today), at.today),
    };
  }
  const signer = linkSigner(link.signingKey);
  const binding = linkBinding(link.secretVersion);
  return {
    outcome: 'covered',
    entries: found.entries.map((coverage) => ({
      coverage,
      pdfUrl:
        link.baseUrl + signer.sign('GET', healthCardPath(employeeId, coverage.policy_id), at.now, binding),
    })),
  };
}

export interface HealthCardRequest {
  employeeId: string;
  policyId: string;
  /** The raw request path and query string: the signature covers exactly these. */
  path: string;
  rawQuery: string;
}

export type HealthCardOutcome =
  | { outcome: 'invalid_link' }
  | { outcome: 'not_covered' }
  | { outcome: 'card'; pdf: Buffer; fileName: string };

/**
 * D10: the health card behind a pre-signed link. No token names the tenant: the link names an
 * employee, whose client (read across tenants, the one such read) gives the secret version the link
 * must be bound to, and then the tenant scope every further read goes through.
 */
export async function healthCardThroughLink(
  system: SystemScope,
  req: HealthCardRequest,
  at: { today: string; now: Date },
  signingKey: string,
): Promise<HealthCardOutcome> {
  if (!looksLikeId('employee', req.employeeId) || !looksLikeId('policy', req.policyId))
    return { outcome: 'invalid_link' };
  // A rotation of the client's secret ends every outstanding link. An unknown employee leaves nothing to verify against.
  const owner = await findEmployeeClientAcrossTenants(system, req.employeeId);
  if (!owner) return { outcome: 'invalid_link' };
  // The signature covers the raw request path, so a swapped id or an altered query never gets further.
  const check = linkSigner(signingKey).verify(
    'GET',
    req.path,
    req.rawQuery,
    at.now,
    linkBinding(owner.secretVersion),
  );
  if (!check.ok) return { outcome: 'invalid_link' };

  const scope = TenantScope.of(system.em, owner.clientId);
  const card = await findHealthCard(scope, req.employeeId, req.policyId, at.today);
  if (!card) return { outcome: 'not_covered' };
  return {
    outcome: 'card',
    pdf: await renderHealthCard(card, at.now),
    fileName: healthCardFileName(card.policyNumber),
  };
}
