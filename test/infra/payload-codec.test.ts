import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  UnknownPayloadKeyError,
} from '../../infra/payload-codec.js';

const keyA = { kid: 'key-a', key: randomBytes(32) };
const keyB = { kid: 'key-b', key: randomBytes(32) };
const input = { endorsementId: 'end_01HZX', employeeId: 'emp_7QK2', uhid: 'UHID-99812' };
const plain = (): Payload => defaultPayloadConverter.toPayload(input);
const utf8 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

describe('payload codec (AES-256-GCM)', () => {
  it('encrypts every payload, names its key, hides the content and decodes it back', async () => {
    const codec = new AesGcmPayloadCodec([keyA]);
    const [sealed] = await codec.encode([plain()]);
    expect(utf8(sealed!.metadata!.encoding)).to.equal(ENCRYPTED_ENCODING);
    expect(utf8(sealed!.metadata![KEY_ID_METADATA])).to.equal('key-a');
    expect(Object.keys(sealed!.metadata!)).to.have.members(['encoding', KEY_ID_METADATA]);
    for (const value of Object.values(input)) expect(utf8(sealed!.data)).to.not.include(value);
    const [opened] = await codec.decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).to.deep.equal(input);
  });

  it('uses a fresh IV per payload: the same value never encrypts twice the same', async () => {
    const codec = new AesGcmPayloadCodec([keyA]);
    const [one, two] = await codec.encode([plain(), plain()]);
    expect(Buffer.from(one!.data!).equals(Buffer.from(two!.data!))).to.equal(false);
  });

  it('rotates: [B, A] reads what A wrote and writes with B; A alone cannot read B', async () => {
    const [old] = await new AesGcmPayloadCodec([keyA]).encode([plain()]);
    const rotated = new AesGcmPayloadCodec([keyB, keyA]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([old!]))[0]!)).to.deep.equal(input);
    const [fresh] = await rotated.encode([plain()]);
    expect(utf8(fresh!.metadata![KEY_ID_METADATA])).to.equal('key-b');
    const error = await new AesGcmPayloadCodec([keyA]).decode([fresh!]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnknownPayloadKeyError);
    expect((error as Error).message).to.include('"key-b"');
  });

  it('refuses a tampered payload or a swapped key id', async () => {
    const codec = new AesGcmPayloadCodec([keyA, { kid: 'key-a2', key: keyA.key }]);
    const [sealed] = await codec.encode([plain()]);
    const flipped = Buffer.from(sealed!.data!);
    flipped[20]! ^= 1;
    await expectRejected(codec.decode([{ ...sealed!, data: flipped }]));
    const relabelled = {
      ...sealed!,
      metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('key-a2') },
    };
    await expectRejected(codec.decode([relabelled]));
  });

  it('passes through payloads written before encryption', async () => {
    const [opened] = await new AesGcmPayloadCodec([keyA]).decode([plain()]);
    expect(defaultPayloadConverter.fromPayload(opened!)).to.deep.equal(input);
  });
});

async function expectRejected(promise: Promise<unknown>): Promise<void> {
  const outcome = await promise.then(
    () => 'decoded',
    (err: unknown) => err,
  );
  expect(outcome).to.be.instanceOf(Error);
}
