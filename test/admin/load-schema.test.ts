import { expect } from 'chai';
import { loadFileSchema } from '../../domain/schemas/reference-load.js';
import { storedAdapterConfig } from '../../domain/insurer-exchange/adapter-settings.js';
import { describeIssues } from '../../domain/schemas/issues.js';

/** The load file's insurers (D12, D14): each names its adapter and that adapter's settings, checked whole. */
const insurer = (o: Record<string, unknown>) => ({
  code: 'ACME',
  name: 'Acme Insurance',
  logo_url: 'https://assets.example.com/acme.png',
  ...o,
});

function parse(i: Record<string, unknown>) {
  const input = { insurers: [insurer(i)] };
  const result = loadFileSchema.safeParse(input);
  return result.success
    ? { ok: true as const, insurer: result.data.insurers[0]! }
    : { ok: false as const, error: describeIssues(result.error.issues, input) };
}

function refusal(i: Record<string, unknown>): string {
  const result = parse(i);
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.insurer)}`);
  return result.error;
}

describe('load file: insurer adapters and their settings', () => {
  it('defaults to the simulated adapter with a 14-day SLA', () => {
    const result = parse({});
    expect(result.ok && result.insurer).to.deep.include({
      adapter: 'simulated',
      adapter_settings: { sla_days: 14 },
    });
  });

  it('fills the defaults of an api insurer and keeps an https base URL without its trailing slash', () => {
    const result = parse({
      adapter: 'api',
      adapter_settings: {
        base_url: 'https://api.acme.example.com/v2/',
        signing_secret_env: 'ACME_SIGNING_SECRET',
      },
    });
    expect(result.ok && result.insurer.adapter_settings).to.deep.equal({
      base_url: 'https://api.acme.example.com/v2',
      signing_secret_env: 'ACME_SIGNING_SECRET',
      timeout_ms: 10_000,
      sla_days: 14,
    });
  });

  it('accepts plain http only for a loopback host', () => {
    const settings = (base_url: string) => ({
      adapter: 'api',
      adapter_settings: { base_url, signing_secret_env: 'S' },
    });
    expect(parse(settings('http://127.0.0.1:8080')).ok).to.equal(true);
    expect(parse(settings('http://localhost:8080')).ok).to.equal(true);
    expect(parse(settings('http://[::1]:8080')).ok).to.equal(true);
    expect(refusal(settings('http://api.acme.example.com'))).to.equal(
      'insurers.0.adapter_settings.base_url: must be https (http only for a loopback host)',
    );
    expect(refusal(settings('https://user:pw@api.acme.example.com'))).to.equal(
      'insurers.0.adapter_settings.base_url: must not carry credentials',
    );
    expect(refusal(settings('ftp://api.acme.example.com'))).to.contain('must be https');
  });

  it('names the environment variable of the signing secret, never the secret itself', () => {
    expect(
      refusal({
        adapter: 'api',
        adapter_settings: { base_url: 'https://a.example.com', signing_secret_env: 'whsec_abc' },
      }),
    ).to.equal(
      'insurers.0.adapter_settings.signing_secret_env: must name an environment variable (A-Z, 0-9 and _)',
    );
  });

  it('refuses an api insurer without settings, a timeout out of range and an unknown field', () => {
    expect(refusal({ adapter: 'api' })).to.equal('insurers.0.adapter_settings: is required');
    const error = refusal({
      adapter: 'api',
      adapter_settings: {
        base_url: 'https://a.example.com',
        signing_secret_env: 'S',
        timeout_ms: 60_000,
        retries: 3,
      },
    });
    expect(error).to.contain('insurers.0.adapter_settings.timeout_ms: must be at most 25000');
    expect(error).to.contain('insurers.0.adapter_settings.retries: is not an allowed field');
  });

  it('fills the defaults of a file insurer: generic template, xlsx, the local outbox, 17:00', () => {
    const result = parse({ adapter: 'file' });
    expect(result.ok && result.insurer.adapter_settings).to.deep.equal({
      template: 'generic',
      formats: ['xlsx'],
      transport: { type: 'local' },
      cut_off_time: '17:00',
      sla_days: 14,
    });
  });

  it('accepts a file insurer over SFTP with its host key pinned, and refuses what is malformed', () => {
    const sftp = {
      type: 'sftp',
      host: '127.0.0.1',
      port: 2222,
      username: 'acme',
      private_key_path: '/etc/ghi/acme_ed25519',
      host_key_fingerprint: `SHA256:${'A'.repeat(43)}`,
      remote_outbox_dir: '/in',
      remote_inbox_dir: '/out',
    };
    const result = parse({
      adapter: 'file',
      adapter_settings: {
        template: 'india-census',
        formats: ['xlsx', 'csv'],
        transport: sftp,
        cut_off_time: '18:30',
      },
    });
    expect(result.ok && result.insurer.adapter_settings).to.deep.equal({
      template: 'india-census',
      formats: ['xlsx', 'csv'],
      transport: sftp,
      cut_off_time: '18:30',
      sla_days: 14,
    });
    expect(refusal({ adapter: 'file', adapter_settings: { template: 'generic', format: 'csv' } })).to.equal(
      'insurers.0.adapter_settings.format: is not an allowed field',
    );
    expect(refusal({ adapter: 'file', adapter_settings: { cut_off_time: '5pm' } })).to.equal(
      'insurers.0.adapter_settings.cut_off_time: must be a time HH:MM (24-hour, Asia/Kolkata)',
    );
    expect(refusal({ adapter: 'file', adapter_settings: { template: 'acme' } })).to.equal(
      'insurers.0.adapter_settings.template: must be one of generic, india-census',
    );
    expect(
      refusal({
        adapter: 'file',
        adapter_settings: { transport: { ...sftp, host_key_fingerprint: 'ab:cd' } },
      }),
    ).to.equal(
      'insurers.0.adapter_settings.transport.host_key_fingerprint: must be an OpenSSH SHA256 fingerprint (SHA256:…)',
    );
  });

  it('refuses an unknown adapter, and settings of one adapter given to another', () => {
    expect(refusal({ adapter: 'email' })).to.equal(
      'insurers.0.adapter: must be one of simulated, manual, file, api',
    );
    expect(refusal({ adapter: 'manual', adapter_settings: { template: 'generic' } })).to.equal(
      'insurers.0.adapter_settings.template: is not an allowed field',
    );
    expect(refusal({ adapter: 'simulated', adapter_settings: { sla_days: 0 } })).to.equal(
      'insurers.0.adapter_settings.sla_days: must be at least 1',
    );
  });

  it('reads stored settings back with their defaults, and names a stored field that no longer parses', () => {
    expect(storedAdapterConfig('OLD', 'manual', {})).to.deep.equal({
      adapter: 'manual',
      adapterSettings: { sla_days: 14 },
    });
    expect(() => storedAdapterConfig('ACME', 'api', { base_url: 'https://a.example.com' })).to.throw(
      'insurer ACME: stored api settings are invalid: signing_secret_env: is required',
    );
  });
});

describe('load file: policy eligibility rules (D16)', () => {
  const policy = (eligibility?: unknown) => ({
    policy_number: 'P-1',
    insurer: 'ACME',
    product: 'GMC',
    tpa: 'TPA',
    net_premium: '100',
    gross_premium: '118',
    coverage_type: 'COVERAGE_TYPE_ESCP',
    type: 'POLICY_TYPE_FAMILY_FLOATER',
    status: 'POLICY_STATUS_ACTIVE',
    start_date: '2026-04-01',
    end_date: '2027-03-31',
    slabs: [{ sum_insured: '300000', annual_premium: '3650' }],
    ...(eligibility === undefined ? {} : { eligibility }),
  });
  const parsePolicy = (eligibility?: unknown) =>
    loadFileSchema.safeParse({ policies: [policy(eligibility)] });

  it("stores no overrides by default and the policy's own ones in the domain's names", () => {
    const none = parsePolicy();
    expect(none.success && none.data.policies[0]!.eligibility).to.deep.equal({});
    const some = parsePolicy({ max_children: 3, mid_term_window: { from: '2026-10-01', to: '2026-10-31' } });
    expect(some.success && some.data.policies[0]!.eligibility).to.deep.equal({
      maxChildren: 3,
      midTermWindow: { from: '2026-10-01', to: '2026-10-31' },
    });
  });

  it('refuses the whole file for an unknown rule, a bad number or a window ending before it starts', () => {
    for (const bad of [
      { max_kids: 3 },
      { child_max_age: -1 },
      { life_event_window_days: 1.5 },
      { mid_term_window: { from: '2026-10-31', to: '2026-10-01' } },
    ]) {
      expect(parsePolicy(bad).success, JSON.stringify(bad)).to.equal(false);
    }
  });
});
