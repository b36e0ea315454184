/** An error a client may see: the spec's `{type, title, detail, instance}` body (spec part 7, D11). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail = '',
    readonly headers: Record<string, string> = {},
  ) {
    super(`${type}: ${title}${detail ? ` (${detail})` : ''}`);
  }
}

export const validationError = (detail: string, title = 'Validation Failed'): ApiError =>
  new ApiError(400, 'VALIDATION_ERROR', title, detail);

export const notFound = (title: string, detail = ''): ApiError =>
  new ApiError(404, 'NOT_FOUND', title, detail);

/** D16: a dependent breaking the policy's eligibility rules; the detail names each rule by its code. */
export const dependentNotEligible = (detail: string): ApiError =>
  new ApiError(400, 'DEPENDENT_NOT_ELIGIBLE', 'Dependent Not Eligible', detail);

export const conflict = (title: string, detail = ''): ApiError =>
  new ApiError(409, 'CONFLICT', title, detail);

export const forbidden = (title: string, detail = ''): ApiError =>
  new ApiError(403, 'FORBIDDEN', title, detail);

/** Missing, malformed, expired, wrongly signed or revoked: one answer, nothing about why (spec 5). */
export const unauthorized = (): ApiError =>
  new ApiError(401, 'UNAUTHORIZED', 'Unauthorized', '', { 'WWW-Authenticate': 'Bearer' });

export const serviceUnavailable = (detail: string): ApiError =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'Service Unavailable', detail, { 'Retry-After': '5' });

export const payloadTooLarge = (title: string, detail = ''): ApiError =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', title, detail);

/** The rest of the answers every route may give (D11); shared by the middleware and the API reference. */
export const unexpectedError = (): ApiError => new ApiError(500, 'E5000', 'An unexpected error occurred', '');

export const insufficientScope = (accepted: readonly string[]): ApiError =>
  forbidden('Insufficient Scope', `requires one of: ${accepted.join(', ')}`);

export const malformedJson = (): ApiError => validationError('body: must be valid JSON', 'Malformed JSON');

export const bodyTooLarge = (limit = '1 MiB'): ApiError =>
  payloadTooLarge('Payload Too Large', `request body exceeds ${limit}`);

export const unsupportedMediaType = (): ApiError =>
  new ApiError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'Unsupported Media Type',
    'Content-Type must be application/json',
  );

/** A method the path does not answer; `Allow` lists the ones it does. */
export const methodNotAllowed = (allowed: readonly string[]): ApiError =>
  new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed', `allowed: ${allowed.join(', ')}`, {
    Allow: allowed.join(', '),
  });
