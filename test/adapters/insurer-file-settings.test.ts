import { expect } from 'chai';
import { fileExchangeSettingsSchema } from '../../adapters/file/settings.js';

const sftp = {
  kind: 'sftp',
  host: 'sftp.insurer.example',
  username: 'acme',
  private_key_file: '/etc/keys/insurer',
  host_key_sha256: 'SHA256:aZC6I4I2v6Bjw9u8oFffecOQfICs5m0wi8Lshd2iWNU',
  remote_dir: '/inbound/endorsements',
};

describe('adapters: a file insurer exchange settings (D14)', () => {
  it('defaults to the generic template, XLSX, Kolkata dates and the local outbox', () => {
    expect(fileExchangeSettingsSchema.parse({})).to.deep.equal({
      template: 'generic',
      formats: ['xlsx'],
      time_zone: 'Asia/Kolkata',
      transport: { kind: 'local' },
    });
  });

  it('accepts SFTP with a pinned host key, port 22 by default', () => {
    const parsed = fileExchangeSettingsSchema.parse({ template: 'india-census', transport: sftp });
    expect(parsed.transport).to.deep.equal({ ...sftp, port: 22 });
  });

  for (const [label, bad] of [
    ['an unknown template', { template: 'acme' }],
    ['a repeated format', { formats: ['csv', 'csv'] }],
    ['an unknown time zone', { time_zone: 'Mars/Olympus' }],
    [
      'a host key that is not a SHA256 fingerprint',
      { transport: { ...sftp, host_key_sha256: 'ssh-ed25519 AAAA' } },
    ],
    ['SFTP without a remote folder', { transport: { ...sftp, remote_dir: undefined } }],
    ['a private key inline', { transport: { ...sftp, private_key: '-----BEGIN' } }],
  ] as const) {
    it(`refuses ${label}`, () => {
      expect(fileExchangeSettingsSchema.safeParse(bad).success).to.equal(false);
    });
  }
});
