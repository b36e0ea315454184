import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { SmokeInput } from './contract.js';

const { ping } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

export async function smokeWorkflow(input: SmokeInput): Promise<string> {
  const pong = await ping(input.name);
  return `workflow:${pong}`;
}
