import fs from 'node:fs';
import autocannon from 'autocannon';

/**
 * Runs one load measurement and prints a JSON summary on stdout. Started as its own process by the
 * bench so that load generation never shares an event loop with the server under test.
 */
export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers?: Record<string, string>;
  /** One body for every request, or a list cycled through (e.g. distinct endorsement requests). */
  body?: string;
  bodies?: string[];
  connections: number;
  durationSeconds?: number;
  amount?: number;
  warmupSeconds?: number;
}

export interface LoadSummary {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function run(spec: LoadSpec): Promise<LoadSummary> {
  let next = 0;
  const requests = spec.bodies
    ? [
        {
          setupRequest: (req: Record<string, unknown>) => ({
            ...req,
            body: spec.bodies![next++ % spec.bodies!.length],
          }),
        },
      ]
    : undefined;
  const options = {
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: { ...(spec.body || spec.bodies ? { 'content-type': 'application/json' } : {}), ...spec.headers },
    body: spec.body,
    connections: spec.connections,
    pipelining: 1,
    // autocannon notices the last response of a fixed amount at its next sample (1 s by default),
    // so a 2.1 s run read as 3.0 s: sample every 10 ms there, and the duration is the run's own.
    ...(spec.amount ? { amount: spec.amount, sampleInt: 10 } : { duration: spec.durationSeconds ?? 10 }),
    ...(requests ? { requests } : {}),
    ...(spec.warmupSeconds
      ? { warmup: { connections: spec.connections, duration: spec.warmupSeconds } }
      : {}),
  } as autocannon.Options;
  const result = await autocannon(options);
  return {
    // A fixed amount ends mid-second: autocannon's average of whole seconds would count the last
    // second as a full one, so count over the run's duration.
    rps: spec.amount ? result.requests.total / result.duration : result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

const spec = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as LoadSpec;
run(spec).then(
  (summary) => process.stdout.write(JSON.stringify(summary)),
  (err: unknown) => {
    process.stderr.write(String(err));
    process.exitCode = 1;
  },
);
