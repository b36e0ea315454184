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

export const conflict = (title: string, detail = ''): ApiError =>
  new ApiError(409, 'CONFLICT', title, detail);

export const forbidden = (title: string, detail = ''): ApiError =>
  new ApiError(403, 'FORBIDDEN', title, detail);

export const unauthorized = (): ApiError => new ApiError(401, 'UNAUTHORIZED', 'Unauthorized', '');

export const serviceUnavailable = (detail: string): ApiError =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'Service Unavailable', detail, { 'Retry-After': '5' });

export const payloadTooLarge = (title: string, detail = ''): ApiError =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', title, detail);
