import { z } from 'zod';
import {
  MalformedCensus,
  MAX_CENSUS_BYTES,
  MAX_CENSUS_ROWS,
  CENSUS_COLUMNS,
} from '../../domain/census/rows.js';
import { today } from '../../domain/clock.js';
import { censusViewOf } from '../../domain/census/visibility.js';
import { looksLikeId } from '../../domain/ids.js';
import { UploadLimitExceeded } from '../../domain/upload-limits.js';
import { ENDORSEMENT_READ_SCOPES, ENDORSEMENT_SCOPES, hasAnyScope, type Scope } from '../../domain/scopes.js';
import { readCensusBatch, readCensusRowPage } from '../../data/census/batches.js';
import { commitCensus, planCensus, type CensusPlan } from '../../usecases/census/census.js';
import { TooManyCensusRows, type CensusInput } from '../../usecases/census/file.js';
import { WorkflowNotStarted } from '../../usecases/workflow-start.js';
import { censusTemplateCsv, censusTemplateXlsx } from '../../usecases/census/template.js';
import type { Auth } from '../auth/tokens.js';
import type { AppDeps } from '../deps.js';
import {
  insufficientScope,
  notFound,
  payloadTooLarge,
  serviceUnavailable,
  validationError,
} from '../errors.js';
import { JsonAnswer, PresentedRows, type Presentable } from '../json-answer.js';
import { isUnavailable } from '../middleware/errors.js';
import { cursorsFor, oneDirection, pageQueryFields, pagingFields, withCursorErrors } from '../paging.js';
import {
  batchPayload,
  commitPayload,
  dryRunPayload,
  presentBatch,
  presentBatchRow,
  presentRowPlan,
  presentTotals,
} from '../presenters/census.js';
import { route, type Handler, type Upload } from '../route.js';
import type { TenantScope } from '../../data/scope.js';
import type Koa from 'koa';

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const censusQuery = z.object({
  dry_run: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .optional()
    .meta({ description: 'true: check and plan every row, write nothing (200 with the report)' }),
});
type CensusQuery = z.output<typeof censusQuery>;

const censusBody = z
  .strictObject(
    {
      rows: z
        .array(z.record(z.string(), z.unknown()), { error: 'must be an array of objects' })
        .min(1, 'must hold at least one row')
        .meta({ description: `Rows keyed by field name: ${CENSUS_COLUMNS.map((c) => c.field).join(', ')}` }),
    },
    { error: 'must be an object' },
  )
  .meta({ id: 'CensusRowsBody' });
type CensusBody = z.output<typeof censusBody>;

const batchParams = z.object({ batch_id: z.string().meta({ description: 'The batch id (bat_…)' }) });
const batchQuery = z.object({ ...pageQueryFields }).superRefine(oneDirection);

const tooManyRows = (detail = `a census holds at most ${MAX_CENSUS_ROWS} rows`) =>
  payloadTooLarge('Too Many Rows', detail);
/** A census file past one of CENSUS_FILE_LIMITS, refused as soon as it crossed it (the detail names it). */
const censusTooLarge = (detail: string) => payloadTooLarge('Census Too Large', detail);
const uploadRefusal = (err: UploadLimitExceeded) =>
  err.limit === 'rows'
    ? tooManyRows(err.message)
    : err.tooLarge
      ? censusTooLarge(err.message)
      : unreadable(err.message);
const unreadable = (detail: string) => validationError(`census: ${detail}`, 'Unreadable Census');
const batchNotFound = () => notFound('Batch Not Found');
/** Rows that create employees need this too (D2's employee create). */
const EMPLOYEE_CREATE: Scope[] = ['employee.create', 'employee.all'];
/** Rows that update an employee's details or make them leave need this too (Update Employee's). */
const EMPLOYEE_UPDATE: Scope[] = ['employee.update', 'employee.all'];

function inputOf(ctx: Koa.Context, body: CensusBody | undefined): CensusInput {
  const upload = ctx.state.upload as Upload | undefined;
  if (upload) return { kind: upload.type === CSV ? 'csv' : 'xlsx', bytes: upload.bytes };
  return { kind: 'json', rows: body?.rows ?? [] };
}

async function plan(scope: TenantScope, deps: AppDeps, input: CensusInput): Promise<CensusPlan> {
  try {
    return await planCensus(scope, input, today(deps.clock));
  } catch (err) {
    if (err instanceof TooManyCensusRows) throw tooManyRows();
    if (err instanceof UploadLimitExceeded) throw uploadRefusal(err);
    if (err instanceof MalformedCensus) throw unreadable(err.message);
    throw err;
  }
}

async function commit(deps: AppDeps, scope: TenantScope, auth: Auth, planned: CensusPlan) {
  if (planned.rows.some((r) => r.creates_employee) && !hasAnyScope(auth.scopes, EMPLOYEE_CREATE))
    throw insufficientScope(EMPLOYEE_CREATE);
  if (planned.rows.some((r) => r.updates_employee || r.exit) && !hasAnyScope(auth.scopes, EMPLOYEE_UPDATE))
    throw insufficientScope(EMPLOYEE_UPDATE);
  try {
    const batchId = await commitCensus(deps, scope, planned, { tokenId: auth.tokenId });
    return {
      batch_id: batchId,
      message: 'Census accepted; its rows are being applied',
      success: true as const,
    };
  } catch (err) {
    if (!(err instanceof WorkflowNotStarted)) throw err;
    if (isUnavailable(err.cause))
      throw serviceUnavailable('The workflow engine is unreachable; retry shortly.');
    throw err.cause;
  }
}

const template = (path: string, type: string, operationId: string, make: () => Promise<Buffer | string>) =>
  route({
    method: 'GET',
    path,
    operationId,
    summary: `Census template (${type === CSV ? 'CSV' : 'XLSX'})`,
    description: 'The header row a census is read by; fill one row per person.',
    scopes: ENDORSEMENT_READ_SCOPES,
    response: { contentType: type, schema: z.string(), description: 'The census template' },
    handler: async ({ ctx }: Handler<undefined, undefined, undefined, Auth>) => {
      ctx.body = await make();
      ctx.status = 200;
      ctx.type = type;
      ctx.set('Content-Disposition', `attachment; filename="${path.split('/').pop()!}"`);
      return undefined;
    },
  });

/** D16: census batches. */
export const censusRoutes = [
  template('/v1/policy/endorsements/batches/template.csv', CSV, 'getCensusTemplateCsv', async () =>
    censusTemplateCsv(),
  ),
  template(
    '/v1/policy/endorsements/batches/template.xlsx',
    XLSX,
    'getCensusTemplateXlsx',
    censusTemplateXlsx,
  ),
  route({
    method: 'POST',
    path: '/v1/policy/endorsements/batches',
    operationId: 'createEndorsementBatch',
    summary: 'Upload a census: dry run or commit (D16)',
    description:
      `A census as CSV (\`${CSV}\`), XLSX (\`${XLSX}\`) or JSON \`{rows: [...]}\`; at most ${MAX_CENSUS_ROWS} rows ` +
      `and 10 MiB (413 past either; a JSON body at most 4 MiB). A file is read as it streams and refused as soon as ` +
      "it crosses a bound: rows blank ones included (413 Too Many Rows), an XLSX's shared strings, inflated size " +
      'or parts (413 Census Too Large), cells per row or characters per cell (400 Unreadable Census); the detail ' +
      'names the bound and its value (docs/security/uploads.md). ' +
      `Headers as the templates. \`?dry_run=true\` answers 200 with every row's plan ` +
      'or errors and the totals (premium, CD impact) and writes nothing; a commit answers 202 with the batch id at ' +
      'once and a workflow applies the rows, each once. Rows that create employees need `employee.create` (or ' +
      '`employee.all`) too; rows that change an existing employee (`updates_employee`, or an `exit`: a delete ' +
      'row without a policy) need `employee.update` (or `employee.all`). ' +
      '`Idempotency-Key` as on endorsements (the same file again with the same key: the same batch). ' +
      'The report (here and on the batch) shows CD figures only to a token that reads the CD account ' +
      '(`policy.get`, `policy.all`; else `totals.cd` is null), whose cover a row ends and open endorsements only ' +
      'with `policy.get`, `policy.members.list` or `policy.all`, and stored employees’ details (another’s ' +
      'e-mail, a family’s members) only with `employee.get` or `employee.all`; otherwise such a row says only ' +
      'that it would be refused, naming the scopes that show why.',
    scopes: ENDORSEMENT_SCOPES,
    query: censusQuery,
    body: censusBody,
    uploads: [CSV, XLSX],
    bodyLimit: MAX_CENSUS_BYTES,
    successStatus: 202,
    response: z.union([commitPayload, dryRunPayload]),
    errors: [
      tooManyRows(),
      censusTooLarge('<which bound>'),
      unreadable('<why>'),
      insufficientScope(EMPLOYEE_CREATE),
      insufficientScope(EMPLOYEE_UPDATE),
    ],
    idempotencyKey: true,
    // A dry run writes nothing: it is not keyed (the same key may then commit).
    unkeyed: (q) => (q as CensusQuery).dry_run === 'true',
    handler: async ({
      query,
      body,
      auth,
      scope,
      deps,
      ctx,
    }: Handler<undefined, CensusQuery, CensusBody, Auth>) => {
      const planned = await plan(scope, deps, inputOf(ctx, body));
      if (query.dry_run !== 'true') return commit(deps, scope, auth, planned);
      const view = censusViewOf(auth.scopes);
      ctx.status = 200;
      // Built to the schema's type by the presenters, not parsed again: 10,000 rows' answer is checked
      // against the contract by the tests (every answer they receive), not on every dry run. Rows
      // presented as they are written, in pieces (D18): 4.7 MB of JSON in one go would hold every
      // other request meanwhile.
      const payload: Presentable<z.output<typeof dryRunPayload>> = {
        dry_run: true,
        rows: PresentedRows.of(planned.rows, (p) => presentRowPlan(p, view)),
        totals: presentTotals(planned.totals, view),
        message: 'Census checked; nothing was written',
        success: true,
      };
      ctx.body = new JsonAnswer({ payload });
      ctx.type = 'json';
      return undefined;
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/endorsements/batches/:batch_id',
    operationId: 'getEndorsementBatch',
    summary: "A census batch's progress and its rows' outcomes (D16)",
    description: 'Counts by outcome, status, and one page of rows in file order (keyset paging, D5).',
    scopes: ENDORSEMENT_READ_SCOPES,
    params: batchParams,
    query: batchQuery,
    response: batchPayload,
    errors: [batchNotFound()],
    handler: async ({
      params,
      query,
      auth,
      scope,
      deps,
    }: Handler<z.output<typeof batchParams>, z.output<typeof batchQuery>, undefined, Auth>) => {
      const id = params.batch_id;
      const batch = looksLikeId('batch', id) ? await readCensusBatch(scope, id) : undefined;
      if (!batch) throw batchNotFound();
      const page = await withCursorErrors(readCensusRowPage(scope, cursorsFor(deps.config), id, query));
      return {
        batch: presentBatch(batch, censusViewOf(auth.scopes)),
        rows: page.rows.map((r) => presentBatchRow(r, censusViewOf(auth.scopes))),
        ...pagingFields(page),
        message: 'Batch fetched successfully',
        success: true,
      };
    },
  }),
];
