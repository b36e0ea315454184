import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import YAML from 'yaml';
import { OperatorRefusal } from '../domain/operator-refusal.js';
import {
  createClient,
  listClients,
  parseScopes,
  revokeClient,
  rotateSecret,
  setExitMode,
} from '../usecases/clients.js';
import {
  addWebhook,
  listDeliveries,
  listWebhooks,
  removeWebhook,
  resealWebhookSecrets,
} from '../usecases/webhooks/endpoints.js';
import {
  createInsurerClient,
  listInsurerClients,
  revokeInsurerClient,
  rotateInsurerClient,
} from '../usecases/insurer-exchange/principals.js';
import { setThreshold, topUp } from '../admin/cd-account.js';
import { loadPartners, loadReferenceData } from '../usecases/reference-load.js';
import { quoteRenewal, startRenewal } from '../admin/renewals.js';
import { loadFileSchema } from '../domain/schemas/reference-load.js';
import { describeIssues } from '../domain/schemas/issues.js';
import { ConfigError, ownerMigration, requireDatabaseUrls } from '../config/index.js';
import { initOrm, loginsOf, migrateDatabase } from '../db/orm.js';
import { operatorConfig } from '../infra/local-stack.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import type { Config } from '../config/index.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  syncInsurerCutOffSchedules,
  type InsurerScheduleSync,
} from '../usecases/insurer-exchange/schedules.js';
import { refuseBracketedArguments } from './command-args.js';

const USAGE = `usage:
  admin client:create --name NAME [--scopes a,b] [--json]
  admin client:list [--json]                  # clients, scopes, secret version, revoked_at; never a secret
  admin client:rotate CLIENT_ID [--reinstate] [--json]   # new secret; the old one and its tokens stop at once
  admin client:revoke CLIENT_ID [--json]      # its secret and every token already issued stop at once
  admin client:exit-mode CLIENT_ID automatic|proposed [--json]   # D16: leavers' DELETIONs created or proposed
  admin insurer-client:create INSURER_CODE [--json]   # scopes insurer.decisions, insurer.endorsements
  admin insurer-client:list [INSURER_CODE] [--json]
  admin insurer-client:rotate INSURER_CLIENT_ID [--json]   # new secret; the old one and its tokens stop at once
  admin insurer-client:revoke INSURER_CLIENT_ID [--json]   # its tokens are refused from now on
  admin load PARTNERS_FILE [--json]             # the platform's insurers, TPAs and products
  admin load FILE --client CLIENT_ID [--json]   # a client's policies and employees
  admin webhook:add CLIENT_ID URL [--events a,b] [--json]
  admin webhook:list CLIENT_ID [--json]
  admin webhook:reseal [--json]              # after a new key is put first in WEBHOOK_SECRET_KEYS
  admin webhook:remove WEBHOOK_ID [--json]
  admin webhook:deliveries CLIENT_ID [--event EVENT_ID] [--json]
  admin cd:topup POLICY_ID AMOUNT --reference REF [--json]   # rupees, paise exact: 1234.56
  admin cd:threshold POLICY_ID AMOUNT|default [--json]       # low-balance threshold; default: 10 % of gross premium
  admin renewal:start POLICY_ID [--quote FILE] [--json]   # D17: open the term's renewal now (quote: JSON or YAML)
  admin renewal:quote POLICY_ID FILE [--json]             # the insurer's quote for a renewal still DRAFT
  admin migrate`;

/**
 * D14: after a load that wrote insurers, the file insurers' cut-off Schedules follow their settings
 * (created, moved to a new cut-off time, or removed). The load has committed either way: without a
 * reachable Temporal this says so, and the next worker start (or `ops schedules --create`) syncs.
 */
async function syncCutOffSchedules(config: Config, em: EntityManager): Promise<InsurerScheduleSync | string> {
  if (!config.TEMPORAL_ADDRESS) {
    return 'not synced: TEMPORAL_ADDRESS is not set (a worker syncs them at start, or ops schedules --create)';
  }
  const temporal = createTemporalClient(config);
  try {
    return await syncInsurerCutOffSchedules(temporal, em, config.TEMPORAL_TASK_QUEUE);
  } catch (err) {
    return `not synced: ${(err as Error).message} (a worker syncs them at start, or ops schedules --create)`;
  } finally {
    await temporal.connection.close();
  }
}

/** Operator commands against the same database as a running API (D3, D12). */
async function main(argv: string[]): Promise<unknown> {
  // A negative amount would read as an option; name it for what it is.
  const negative =
    argv[0] === 'cd:topup' || argv[0] === 'cd:threshold' ? argv.find((a) => /^-\d/.test(a)) : undefined;
  if (negative) throw new OperatorRefusal(`amount must be positive: ${negative}`);
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      client: { type: 'string' },
      events: { type: 'string' },
      event: { type: 'string' },
      reference: { type: 'string' },
      reinstate: { type: 'boolean', default: false },
      quote: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [command, arg, arg2] = positionals;
  const config = operatorConfig(['database']);
  // Migrates as the owner when it has the owner's login (a local stack's); the commands themselves
  // run as the service's roles, like the API.
  const migration = ownerMigration(config);
  if (migration) await migrateDatabase(migration.ownerUrl, loginsOf(migration.loginUrls));
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
  try {
    const em = orm.em.fork();
    switch (command) {
      case 'client:create':
        if (!values.name) throw new OperatorRefusal('--name is required');
        return await createClient(em, values.name, parseScopes(values.scopes));
      case 'client:list':
        return await listClients(em);
      case 'client:rotate':
      case 'client:rotate-secret': // its first name, kept for operators' scripts
        if (!arg) throw new OperatorRefusal('CLIENT_ID is required');
        return await rotateSecret(em, arg, values.reinstate);
      case 'client:revoke':
        if (!arg) throw new OperatorRefusal('CLIENT_ID is required');
        return await revokeClient(em, arg);
      case 'client:exit-mode':
        if (!arg) throw new OperatorRefusal('CLIENT_ID is required');
        return await setExitMode(em, arg, arg2);
      case 'insurer-client:create':
        if (!arg) throw new OperatorRefusal('INSURER_CODE is required');
        if (values.client) throw new OperatorRefusal('--client is gone: an insurer serves every client');
        return await createInsurerClient(em, arg);
      case 'insurer-client:list':
        return await listInsurerClients(em, arg);
      case 'insurer-client:rotate':
        if (!arg) throw new OperatorRefusal('INSURER_CLIENT_ID is required');
        return await rotateInsurerClient(em, arg);
      case 'insurer-client:revoke':
        if (!arg) throw new OperatorRefusal('INSURER_CLIENT_ID is required');
        return await revokeInsurerClient(em, arg);
      case 'load': {
        if (!arg) throw new OperatorRefusal('FILE is required');
        const text = await fs.readFile(arg, 'utf8');
        const parsed = loadFileSchema.safeParse(arg.endsWith('.json') ? JSON.parse(text) : YAML.parse(text));
        if (!parsed.success)
          throw new OperatorRefusal(`invalid file: ${describeIssues(parsed.error.issues)}`);
        const loaded = values.client
          ? await loadReferenceData(em, values.client, parsed.data)
          : await loadPartners(em, parsed.data);
        if (parsed.data.insurers.length === 0) return loaded;
        return { ...loaded, cut_off_schedules: await syncCutOffSchedules(config, em) };
      }
      case 'webhook:add':
        if (!arg || !arg2) throw new OperatorRefusal('CLIENT_ID and URL are required');
        return await addWebhook(em, config, { clientId: arg, url: arg2, events: values.events });
      case 'webhook:list':
        if (!arg) throw new OperatorRefusal('CLIENT_ID is required');
        return await listWebhooks(em, arg);
      case 'webhook:reseal':
        return await resealWebhookSecrets(em, config);
      case 'webhook:remove':
        if (!arg) throw new OperatorRefusal('WEBHOOK_ID is required');
        return await removeWebhook(em, arg);
      case 'webhook:deliveries':
        if (!arg) throw new OperatorRefusal('CLIENT_ID is required');
        return await listDeliveries(em, arg, values.event);
      case 'cd:topup':
        return await topUp(em, config, arg, arg2, values.reference);
      case 'cd:threshold':
        return await setThreshold(em, arg, arg2);
      case 'renewal:start':
        return await startRenewal(em, config, arg, values.quote);
      case 'renewal:quote':
        return await quoteRenewal(em, arg, arg2);
      case 'migrate':
        return { migrated: true };
      default:
        throw new OperatorRefusal(USAGE);
    }
  } finally {
    await orm.close();
  }
}

refuseBracketedArguments(process.argv.slice(2));
const json = process.argv.includes('--json');
main(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${YAML.stringify(result)}`);
  },
  (err: unknown) => {
    // Driver errors carry the SQL (with parameter values); only the database's own reason is printed.
    const known = err instanceof OperatorRefusal || err instanceof ConfigError;
    const message = known ? err.message : `failed: ${(err as Error).message.split(' - ').pop()}`;
    process.stderr.write(json ? `${JSON.stringify({ error: message })}\n` : `${message}\n`);
    process.exitCode = err instanceof OperatorRefusal ? 2 : 1;
  },
);
