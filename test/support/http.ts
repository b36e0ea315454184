export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is (no JSON encoding), for malformed-body tests. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** A small fetch wrapper: JSON in and out, the status and headers as a client sees them. */
export function client(baseUrl: string) {
  async function send(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Buffer | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed, headers: res.headers, text };
  }
  return {
    send,
    get: (path: string, opts?: RequestOptions) => send('GET', path, opts),
    post: (path: string, opts?: RequestOptions) => send('POST', path, opts),
    put: (path: string, opts?: RequestOptions) => send('PUT', path, opts),
    patch: (path: string, opts?: RequestOptions) => send('PATCH', path, opts),
    delete: (path: string, opts?: RequestOptions) => send('DELETE', path, opts),
  };
}
export type HttpClient = ReturnType<typeof client>;
