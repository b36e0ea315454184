import { expect } from 'chai';
import { fileAdapterSettings } from '../../../domain/insurer-exchange/adapter-settings.js';

const sftp = {
  type: 'sftp',
  host: 'sftp.insurer.example',
  username: 'acme',
  private_key_path: '/etc/keys/insurer',
  host_key_fingerprint: 'SHA256:aZC6I4I2v6Bjw9u8oFffecOQfICs5m0wi8Lshd2iWNU',
  remote_outbox_dir: '/inbound/endorsements',
  remote_inbox_dir: '/outbound/responses',
};

describe('domain: a file insurer exchange settings (D14)', () => {
  it('defaults to the generic template, XLSX, the local outbox, a 17:00 cut-off and a 14-day SLA', () => {
    expect(fileAdapterSettings.parse({})).to.deep.equal({
      template: 'generic',
      formats: ['xlsx'],
      transport: { type: 'local' },
      cut_off_time: '17:00',
      sla_days: 14,
    });
  });

  it('accepts SFTP with a pinned host key, port 22 by default', () => {
    const parsed = fileAdapterSettings.parse({ template: 'india-census', transport: sftp });
    expect(parsed.transport).to.deep.equal({ ...sftp, port: 22 });
  });

  for (const [label, bad] of [
    ['an unknown template', { template: 'acme' }],
    ['a repeated format', { formats: ['csv', 'csv'] }],
    ['an unknown format', { formats: ['pdf'] }],
    ['a cut-off that is not a time', { cut_off_time: '5pm' }],
    [
      'a host key that is not a SHA256 fingerprint',
      { transport: { ...sftp, host_key_fingerprint: 'ssh-ed25519 AAAA' } },
    ],
    ['SFTP without a remote outbox', { transport: { ...sftp, remote_outbox_dir: undefined } }],
    ['a private key inline', { transport: { ...sftp, private_key: '-----BEGIN' } }],
  ] as const) {
    it(`refuses ${label}`, () => {
      expect(fileAdapterSettings.safeParse(bad).success).to.equal(false);
    });
  }
});
