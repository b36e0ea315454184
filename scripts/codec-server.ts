import { loadConfig } from '../config/index.js';
import { configuredCodecServer, listenCodecServer } from '../infra/codec-server.js';
import { storedKeysUnlessSet } from '../infra/local-stack.js';
import { storedLocalKeys } from '../infra/local-keys.js';

/**
 * The codec server alone (`npm run codec-server`): keys and token from the environment, else from the
 * local stack's keys file in DATA_DIR. Runs until SIGINT/SIGTERM.
 */
const base = loadConfig();
const config = loadConfig({
  ...process.env,
  ...storedKeysUnlessSet(process.env, storedLocalKeys(base.dataDir)),
});
const server = await listenCodecServer(
  configuredCodecServer(config),
  config.CODEC_SERVER_PORT,
  config.CODEC_SERVER_HOST,
);
console.log(`codec server on http://${config.CODEC_SERVER_HOST}:${config.CODEC_SERVER_PORT}`);
const stop = () => server.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
