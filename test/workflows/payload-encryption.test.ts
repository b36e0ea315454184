import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../config/index.js';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../infra/payload-codec.js';
import { payloadDataConverter } from '../../infra/temporal-client.js';
import { createWorker } from '../../worker/create-worker.js';
import {
  endorsementWorkflowId,
  insurerDecisionSignal,
  type EndorsementState,
} from '../../workflows/endorsement/contract.js';
import { createLogger } from '../../infra/logger.js';
import { client as http } from '../support/http.js';
import { stack, TEST_KEYS } from '../support/stack.js';
import { createEndorsement, decide, makeWorld, waitForStatus } from './endorsement-support.js';

/** What the SDK core writes of a local activity's run, outside the codec (no argument, no result). */
const LOCAL_ACTIVITY_MARKER_FIELDS = [
  'seq',
  'attempt',
  'activity_id',
  'activity_type',
  'complete_time',
  'backoff',
  'original_schedule_time',
];

const utf8 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

/**
 * Every payload of a history as the server stores it, read without any codec. Left aside: search
 * attributes (the server indexes them, so they stay readable by design: ids only, never personal
 * data), the SDK's own patch markers (written by the SDK core outside the codec: a code change's
 * name) and the core's own record of a local activity (its sequence number, activity id and type,
 * attempt and times; the activity's result beside it goes through the codec like any payload),
 * which are returned apart so the test can check they hold nothing else.
 */
async function rawPayloads(
  workflowId: string,
): Promise<{ payloads: Payload[]; patchMarkers: unknown[]; localActivityMarkers: object[] }> {
  const { temporal, config } = stack();
  const payloads: Payload[] = [];
  const patchMarkers: unknown[] = [];
  const localActivityMarkers: object[] = [];
  const walk = (node: unknown, key: string): void => {
    if (key === 'searchAttributes' || node === null || typeof node !== 'object') return;
    if (node instanceof Uint8Array) return;
    const record = node as Record<string, unknown>;
    if (record.data instanceof Uint8Array && record.metadata && typeof record.metadata === 'object') {
      payloads.push(record);
      return;
    }
    if (key === 'markerRecordedEventAttributes' && record.markerName === 'core_patch') {
      const details = record.details as Record<string, { payloads: Payload[] }>;
      for (const p of Object.values(details).flatMap((d) => d.payloads))
        patchMarkers.push(JSON.parse(utf8(p.data)));
      return;
    }
    if (key === 'markerRecordedEventAttributes' && record.markerName === 'core_local_activity') {
      const details = record.details as Record<string, { payloads: Payload[] }>;
      for (const p of details.data?.payloads ?? [])
        localActivityMarkers.push(JSON.parse(utf8(p.data)) as object);
      for (const [child, value] of Object.entries(record)) if (child !== 'details') walk(value, child);
      for (const [name, value] of Object.entries(details)) if (name !== 'data') walk(value, name);
      return;
    }
    for (const [child, value] of Object.entries(record)) walk(value, child);
  };
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await temporal.workflowService.getWorkflowExecutionHistory({
      namespace: config.TEMPORAL_NAMESPACE,
      execution: { workflowId },
      nextPageToken,
    });
    walk(page.history, 'history');
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return { payloads, patchMarkers, localActivityMarkers };
}

/** Every failure's message and stack trace in a stored history, as the server keeps them. */
async function rawFailureTexts(workflowId: string): Promise<string[]> {
  const { temporal, config } = stack();
  const texts: string[] = [];
  const walk = (node: unknown, key: string): void => {
    if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return;
    const record = node as Record<string, unknown>;
    if (key === 'failure' || key === 'cause') {
      const text = (v: unknown) => (typeof v === 'string' ? v : '');
      texts.push(text(record.message), text(record.stackTrace));
    }
    for (const [child, value] of Object.entries(record)) walk(value, child);
  };
  const page = await temporal.workflowService.getWorkflowExecutionHistory({
    namespace: config.TEMPORAL_NAMESPACE,
    execution: { workflowId },
  });
  walk(page.history, 'history');
  return texts;
}

const keyIds = (payloads: Payload[]) => payloads.map((p) => utf8(p.metadata?.[KEY_ID_METADATA]));

describe('payload encryption', () => {
  it('leaves no plaintext in an approved endorsement’s stored history; the codec reads it back', async () => {
    const world = await makeWorld();
    const id = await createEndorsement(world);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const uhid = `UHID-${randomBytes(4).toString('hex')}`;
    await decide(id, { decision: 'APPROVED', insurer_member_id: 'INS-M-7', uhid });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    const handle = stack().temporal.workflow.getHandle(endorsementWorkflowId(id));
    const result = (await handle.result()) as EndorsementState;

    const { payloads, patchMarkers, localActivityMarkers } = await rawPayloads(endorsementWorkflowId(id));
    expect(payloads.length).to.be.greaterThan(5);
    for (const marker of patchMarkers) expect(marker).to.have.all.keys('id', 'deprecated');
    // The review, hold and routing (one call) and the SLA read ran as local activities: their markers
    // name steps only.
    expect(localActivityMarkers.map((m) => (m as { activity_type: string }).activity_type)).to.include(
      'reviewHoldAndRoute',
    );
    for (const marker of localActivityMarkers)
      expect(LOCAL_ACTIVITY_MARKER_FIELDS).to.include.members(Object.keys(marker));
    const secrets = [
      id,
      world.employee.id,
      world.policy.id,
      world.client.clientId,
      uhid,
      'INS-M-7',
      'APPROVED',
    ];
    for (const payload of payloads) {
      expect(utf8(payload.metadata?.encoding)).to.equal(ENCRYPTED_ENCODING);
      const stored = Buffer.from(payload.data!);
      for (const secret of secrets) {
        expect(stored.includes(secret), `"${secret}" stored in clear`).to.equal(false);
        expect(stored.toString('base64')).to.not.include(Buffer.from(secret).toString('base64'));
      }
    }
    expect(new Set(keyIds(payloads))).to.deep.equal(new Set([kidOf(TEST_KEYS.PAYLOAD_ENCRYPTION_KEYS!)]));

    // Through the codec the same history reads as what was sent: the input and the result.
    const history = await handle.fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    const [input] = await stack().temporal.options.loadedDataConverter.payloadCodecs[0]!.decode(started);
    expect(JSON.parse(utf8(input!.data))).to.include({ endorsementId: id, employeeId: world.employee.id });
    expect(result).to.include({ endorsementId: id, status: 'ENDORSEMENT_STATUS_APPROVED' });
  });

  it('stores an activity failure’s message and stack trace encrypted; the workflow still reads the reason', async () => {
    const world = await makeWorld({ employee: { status: 'INACTIVE' } });
    const id = await createEndorsement(world);
    const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED');
    // Decoded where it is used: the review's reason reached the endorsement row.
    expect(row.rejection_reason).to.match(/^Review: .*not active/);

    const texts = await rawFailureTexts(endorsementWorkflowId(id));
    expect(texts.length, 'failures in the history').to.be.greaterThan(0);
    for (const text of texts) {
      expect(text).to.not.include('not active');
      expect(text).to.not.include('Review:');
      expect(text).to.not.include('.ts:');
    }
    expect(texts.filter((t) => t === 'Encoded failure')).to.not.have.length(0);
    const { payloads } = await rawPayloads(endorsementWorkflowId(id));
    for (const payload of payloads) expect(utf8(payload.metadata?.encoding)).to.equal(ENCRYPTED_ENCODING);
  });

  it('rotates keys: a worker with [B, A] finishes what A wrote, new payloads use B, A alone cannot read them', async function () {
    this.timeout(120_000);
    const s = stack();
    const keyA = TEST_KEYS.PAYLOAD_ENCRYPTION_KEYS!;
    const keyB = `rotated-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('hex')}`;
    const taskQueue = `${s.taskQueue}-rotation`;
    const configFor = (keys: string) =>
      ({
        ...s.config,
        ...loadConfig({ PAYLOAD_ENCRYPTION_KEYS: keys }),
        TEMPORAL_TASK_QUEUE: taskQueue,
      }) as typeof s.config;
    const onlyA = configFor(keyA);
    const rotated = configFor(`${keyB},${keyA}`);
    const clientFor = (config: typeof s.config) =>
      new Client({
        connection: s.temporal.connection,
        namespace: config.TEMPORAL_NAMESPACE,
        dataConverter: payloadDataConverter(config),
      });

    const connection = await NativeConnection.connect({ address: s.temporalAddress });
    const workerFor = (config: typeof s.config) =>
      createWorker({
        config,
        orm: s.orm,
        clock: s.workerClock,
        logger: createLogger('silent'),
        temporal: clientFor(config),
        adapters: s.adapters,
        connection,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue,
      });
    try {
      // Written with A: the start and the steps up to the insurer.
      const api = await s.startApi({ config: onlyA, temporal: clientFor(onlyA) });
      const world = await makeWorld({ api: http(api.url) });
      const workerA = await workerFor(onlyA);
      const id = await workerA.runUntil(async () => {
        const created = await createEndorsement(world);
        await waitForStatus(created, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
        return created;
      });
      const workflowId = endorsementWorkflowId(id);
      const written = keyIds((await rawPayloads(workflowId)).payloads);
      expect(new Set(written)).to.deep.equal(new Set([kidOf(keyA)]));

      // A new worker (no cache: it replays A's history) and a client with [B, A].
      const workerBA = await workerFor(rotated);
      await workerBA.runUntil(async () => {
        await clientFor(rotated).workflow.getHandle(workflowId).signal(insurerDecisionSignal, {
          decision: 'APPROVED',
          insurer_member_id: 'INS-R',
          uhid: 'UHID-R',
        });
        await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
        await clientFor(rotated).workflow.getHandle(workflowId).result();
      });
      const after = keyIds((await rawPayloads(workflowId)).payloads);
      expect(after.slice(0, written.length)).to.deep.equal(written);
      const added = after.slice(written.length);
      expect(added.length).to.be.greaterThan(0);
      expect(new Set(added)).to.deep.equal(new Set([kidOf(keyB)]));

      const refused = await clientFor(onlyA)
        .workflow.getHandle(workflowId)
        .result()
        .catch((e: unknown) => e);
      expect(String(refused)).to.include(`"${kidOf(keyB)}"`);
    } finally {
      await connection.close();
    }
  });
});

const kidOf = (pair: string) => pair.split(':')[0]!;
