import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { localInsurerFolders, localTransport } from '../../adapters/file/local.js';
import { sftpTransport } from '../../adapters/file/sftp.js';
import { InsurerDeliveryError } from '../../adapters/file/transport.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';

const FILE = 'STAR_GHI-2026-0042_20261123.xlsx';
const content = (text: string) => Buffer.from(text, 'utf8');

async function refusal(promise: Promise<unknown>): Promise<InsurerDeliveryError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the delivery should have failed').to.be.instanceOf(InsurerDeliveryError);
  return err as InsurerDeliveryError;
}

describe('adapters: insurer file delivery over SFTP (real OpenSSH server)', function () {
  this.timeout(30_000);
  let server: SftpServer;

  before(async () => {
    server = await startSftpServer();
  });
  after(async () => {
    await server?.close();
  });
  afterEach(async () => {
    await server.start().catch(() => undefined);
    for (const name of readdirSync(server.remoteDir)) rmSync(path.join(server.remoteDir, name));
  });

  const transport = (pin = server.hostKeySha256) => sftpTransport({ ...server, hostKeySha256: pin });

  it('puts the file under the configured folder with its content and nothing else', async () => {
    await transport().deliver(FILE, content('census v1'));
    expect(readdirSync(server.remoteDir)).to.deep.equal([FILE]);
    expect(readFileSync(path.join(server.remoteDir, FILE), 'utf8')).to.equal('census v1');
  });

  it('replaces the file on a re-delivery of the same name: still one file', async () => {
    await transport().deliver(FILE, content('census v1'));
    await transport().deliver(FILE, content('census v1, again'));
    expect(readdirSync(server.remoteDir)).to.deep.equal([FILE]);
    expect(readFileSync(path.join(server.remoteDir, FILE), 'utf8')).to.equal('census v1, again');
  });

  it('refuses a server whose host key is not the pinned one, writing nothing', async () => {
    const err = await refusal(transport(server.otherHostKeySha256).deliver(FILE, content('census')));
    expect(err.retryable).to.equal(false);
    expect(err.message).to.contain(server.hostKeySha256).and.contain('not the pinned');
    expect(readdirSync(server.remoteDir)).to.deep.equal([]);
  });

  it('reports a server that is down as retryable, and delivering after it returns writes exactly one file', async () => {
    await server.stop();
    const err = await refusal(transport().deliver(FILE, content('census')));
    expect(err.retryable).to.equal(true);
    expect(err.message).to.contain(`${server.host}:${server.port}`).and.contain('unavailable');
    await server.start();
    await transport().deliver(FILE, content('census'));
    expect(readdirSync(server.remoteDir)).to.deep.equal([FILE]);
    expect(readFileSync(path.join(server.remoteDir, FILE), 'utf8')).to.equal('census');
  });

  it('refuses a login key the server does not know, as a settings fault', async () => {
    const stranger = startSftpServer();
    const other = await stranger;
    try {
      const err = await refusal(
        sftpTransport({ ...server, privateKey: other.privateKey }).deliver(FILE, content('census')),
      );
      expect(err.retryable).to.equal(false);
      expect(err.message).to.contain('login');
    } finally {
      await other.close();
    }
  });

  it('refuses a folder that does not exist on the server, as a settings fault', async () => {
    const missing = path.join(server.remoteDir, 'no-such-folder');
    const err = await refusal(sftpTransport({ ...server, remoteDir: missing }).deliver(FILE, content('x')));
    expect(err.retryable).to.equal(false);
  });
});

describe('adapters: insurer file delivery to the local outbox', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'insurer-files-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes into $DATA_DIR/insurers/<code>/outbox and makes the inbox beside it', async () => {
    const t = localTransport(dataDir, 'STAR');
    await t.deliver(FILE, content('census v1'));
    const { outbox, inbox } = localInsurerFolders(dataDir, 'STAR');
    expect(outbox).to.equal(path.join(dataDir, 'insurers', 'STAR', 'outbox'));
    expect(t.destination).to.equal(outbox);
    expect(readdirSync(outbox)).to.deep.equal([FILE]);
    expect(readFileSync(path.join(outbox, FILE), 'utf8')).to.equal('census v1');
    expect(readdirSync(inbox)).to.deep.equal([]);
  });

  it('replaces the file on a re-delivery of the same name, leaving no partial file', async () => {
    const t = localTransport(dataDir, 'STAR');
    await t.deliver(FILE, content('census v1'));
    await t.deliver(FILE, content('census v2'));
    const { outbox } = localInsurerFolders(dataDir, 'STAR');
    expect(readdirSync(outbox)).to.deep.equal([FILE]);
    expect(readFileSync(path.join(outbox, FILE), 'utf8')).to.equal('census v2');
  });

  it('refuses a file name that is not a plain name', async () => {
    const err = await refusal(localTransport(dataDir, 'STAR').deliver('../escape.csv', content('x')));
    expect(err.retryable).to.equal(false);
  });
});
