import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { verifyWebhook } from '../domain/webhooks/signature.js';

/**
 * An insurer's API for the local demo: it speaks the `api` adapter's real protocol (signed JSON POSTs
 * of submissions, withdrawals and renewals, adapters/api-insurer/request.ts) and decides as an insurer would,
 * through `POST /v1/insurer/decisions` with an insurer principal's token, by the rules in its
 * settings. `npm start` runs it for the demo's `api` insurer; a real insurer replaces it by
 * changing that insurer's `base_url` and signing secret (docs/insurers).
 */
export const sandboxSettingsSchema = z.strictObject({
  /** Path under which the insurer's API answers, as in the insurer's `base_url` (e.g. `/digit`). */
  path: z.string().regex(/^\/[A-Za-z0-9/_-]*$/, 'must be a path such as /digit'),
  /** Seconds between a submission's receipt and the insurer's decision. */
  approve_after_seconds: z.number().int().min(0).max(86_400).default(5),
  /** A member name matching this (case-insensitive) is rejected instead of approved. */
  reject_names_matching: z
    .string()
    .refine(
      (p) => {
        try {
          new RegExp(p, 'i');
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be a regular expression' },
    )
    .optional(),
  rejection_reason: z.string().min(1).max(200).default('Declined by the insurer sandbox rule'),
  /** UHIDs the sandbox issues start with this. */
  uhid_prefix: z
    .string()
    .regex(/^[A-Z0-9-]{1,12}$/, 'must be 1-12 of A-Z, 0-9 and -')
    .default('UHID-'),
  /**
   * The demo's file insurer (CARE) played by the same rules (infra/insurer-file-sandbox.ts): its
   * code, and the prefix of the UHIDs its response files carry.
   */
  file_insurer: z
    .strictObject({
      code: z.string().regex(/^[A-Z0-9_-]{1,20}$/, 'must be an insurer code such as CARE'),
      uhid_prefix: z.string().regex(/^[A-Z0-9-]{1,12}$/, 'must be 1-12 of A-Z, 0-9 and -'),
    })
    .optional(),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

/** A decision the sandbox owes our API, kept until it is delivered (survives a restart). */
export interface OwedDecision {
  endorsement_id: string;
  decision: 'APPROVED' | 'REJECTED';
  due_at: number;
  uhid?: string;
  rejection_reason?: string;
}

/** A renewal the sandbox received (D17): a receipt only, the service decides nothing on it. Ids only. */
export interface ReceivedRenewal {
  id: string;
  policy_number: string;
  term_start: string;
  term_end: string;
  /** The UHIDs carried to the next term, and those dropped from it. */
  carried: (string | null)[];
  dropped: (string | null)[];
}

export interface SandboxOptions {
  settings: SandboxSettings;
  /** The shared signing secret (the insurer's `signing_secret_env` on the worker). */
  secret: string;
  /** Sends decisions to the administrator's API; resolves once they are recorded there. */
  deliver(decisions: OwedDecision[]): Promise<void>;
  /** Where owed decisions are kept between restarts (mode 0600); none: memory only. */
  stateFile?: string;
  host?: string;
  port?: number;
  now?: () => number;
  /** Told of each renewal received (its first receipt; a retry with the same id is answered alike). */
  onRenewal?(renewal: ReceivedRenewal): void;
}

export interface RunningSandbox {
  url: string;
  /** Decisions not yet delivered. */
  owed(): OwedDecision[];
  /** Renewals received since the start, in order, one per renewal id. */
  renewals(): ReceivedRenewal[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 256 * 1024;
const RETRY_MS = 5_000;

const uhids = z.array(z.object({ uhid: z.string().nullable() }).transform((m) => m.uhid)).max(100_000);
const renewalSchema = z.object({
  id: z.string().min(1).max(64),
  kind: z.literal('renewal'),
  policy_number: z.string().min(1).max(64),
  term_start: z.string(),
  term_end: z.string(),
  carried: uhids,
  dropped: uhids,
});

const submissionSchema = z.object({
  id: z.string().min(1).max(64),
  kind: z.enum(['submission', 'withdrawal']),
  members: z.array(z.object({ name: z.string() })).optional(),
});

export async function startInsurerSandbox(opts: SandboxOptions): Promise<RunningSandbox> {
  const now = opts.now ?? Date.now;
  const owed = new Map<string, OwedDecision>(readState(opts.stateFile).map((d) => [d.endorsement_id, d]));
  const reject = opts.settings.reject_names_matching
    ? new RegExp(opts.settings.reject_names_matching, 'i')
    : null;
  const save = () => writeState(opts.stateFile, [...owed.values()]);
  const renewals = new Map<string, ReceivedRenewal>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  // One delivery loop: every decision that is due goes in one call; a failed call is tried again.
  const pump = async (): Promise<void> => {
    timer = null;
    if (closed) return;
    const due = [...owed.values()].filter((d) => d.due_at <= now());
    let wait = nextDue();
    if (due.length > 0) {
      try {
        await opts.deliver(due);
        for (const d of due) owed.delete(d.endorsement_id);
        save();
        wait = nextDue();
      } catch {
        wait = RETRY_MS;
      }
    }
    if (!closed && wait !== null) timer = setTimeout(() => void pump(), Math.max(0, wait));
  };
  const nextDue = (): number | null => {
    const times = [...owed.values()].map((d) => d.due_at);
    return times.length ? Math.min(...times) - now() : null;
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void pump(), 0);
  };

  const decide = (id: string, names: string[]): OwedDecision => {
    const due_at = now() + opts.settings.approve_after_seconds * 1000;
    if (reject && names.some((n) => reject.test(n))) {
      return {
        endorsement_id: id,
        decision: 'REJECTED',
        due_at,
        rejection_reason: opts.settings.rejection_reason,
      };
    }
    const uhid = `${opts.settings.uhid_prefix}${randomBytes(5).toString('hex').toUpperCase()}`;
    return { endorsement_id: id, decision: 'APPROVED', due_at, uhid };
  };

  const base = opts.settings.path.replace(/\/+$/, '');
  const server = http.createServer((req, res) => {
    const answer = (status: number, body: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0]!;
      const renewal = path === `${base}/renewals`;
      if (req.method !== 'POST' || !(renewal || path.startsWith(`${base}/endorsements`))) {
        return answer(404, { detail: 'no such route' });
      }
      const signature = String(req.headers.signature ?? '');
      if (!verifyWebhook(opts.secret, raw, signature, Math.floor(now() / 1000)).ok) {
        return answer(401, { detail: 'bad signature' });
      }
      if (renewal) {
        // D17: the renewal's receipt; the new term takes effect on its date without an answer of ours.
        let received: ReceivedRenewal;
        try {
          const r = renewalSchema.parse(JSON.parse(raw));
          received = {
            id: r.id,
            policy_number: r.policy_number,
            term_start: r.term_start,
            term_end: r.term_end,
            carried: r.carried,
            dropped: r.dropped,
          };
        } catch {
          return answer(400, { detail: 'not a renewal' });
        }
        if (!renewals.has(received.id)) {
          renewals.set(received.id, received);
          opts.onRenewal?.(received);
        }
        return answer(202, { received: true });
      }
      let parsed: z.infer<typeof submissionSchema>;
      try {
        parsed = submissionSchema.parse(JSON.parse(raw));
      } catch {
        return answer(400, { detail: 'not a submission' });
      }
      if (parsed.kind === 'withdrawal') {
        // Withdrawn before the decision: nothing will be decided.
        owed.delete(parsed.id);
        save();
        return answer(202, { received: true });
      }
      // A retried submission (same endorsement id) keeps the decision already owed.
      if (!owed.has(parsed.id)) {
        owed.set(
          parsed.id,
          decide(
            parsed.id,
            (parsed.members ?? []).map((m) => m.name),
          ),
        );
        save();
        schedule();
      }
      return answer(202, { received: true });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  if (owed.size > 0) schedule();
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}${base}`,
    owed: () => [...owed.values()],
    renewals: () => [...renewals.values()],
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        if (timer) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readState(file: string | undefined): OwedDecision[] {
  if (!file) return [];
  try {
    const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(rows) ? (rows as OwedDecision[]) : [];
  } catch {
    return [];
  }
}

function writeState(file: string | undefined, rows: OwedDecision[]): void {
  if (file) fs.writeFileSync(file, JSON.stringify(rows), { mode: 0o600 });
}

/**
 * Delivers decisions as the insurer's own system would: a token for its insurer principal from
 * `POST /v1/auth/token`, then `POST /v1/insurer/decisions`. A refused item that is not a duplicate is
 * reported (the endorsement may have been cancelled); only a failed call is retried.
 */
export function decisionsClient(apiUrl: string, clientId: string, clientSecret: string) {
  let token: { value: string; until: number } | null = null;
  const call = async (path: string, body: unknown, bearer?: string) => {
    const res = await fetch(`${apiUrl.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const json = (await res.json().catch(() => null)) as { payload?: unknown } | null;
    if (!res.ok) throw new Error(`${path} answered ${res.status}`);
    return json?.payload;
  };
  return async (decisions: OwedDecision[]): Promise<void> => {
    if (!token || token.until < Date.now()) {
      const answer = await call('/v1/auth/token', {
        client_id: clientId,
        client_secret: clientSecret,
        scopes: ['insurer.decisions'],
      });
      const payload = answer as { access_token: string; expires_in: number };
      token = { value: payload.access_token, until: Date.now() + (payload.expires_in - 30) * 1000 };
    }
    await call(
      '/v1/insurer/decisions',
      {
        decisions: decisions.map(({ endorsement_id, decision, uhid, rejection_reason }) => ({
          endorsement_id,
          decision,
          ...(uhid ? { uhid } : {}),
          ...(rejection_reason ? { rejection_reason } : {}),
        })),
      },
      token.value,
    );
  };
}
