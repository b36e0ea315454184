import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../config/index.js';

describe('configuration', () => {
  it('applies defaults when nothing is set', () => {
    const cfg = loadConfig({});
    expect(cfg.PORT).to.equal(3000);
    expect(cfg.baseUrl).to.equal('http://localhost:3000');
    expect(cfg.DATABASE_URL).to.equal(undefined);
    expect(cfg.JWT_SIGNING_KEYS).to.have.length(1);
  });

  it('parses several signing keys, the first one signing', () => {
    const cfg = loadConfig({ JWT_SIGNING_KEYS: `new:${'a'.repeat(32)},old:${'b'.repeat(32)}` });
    expect(cfg.JWT_SIGNING_KEYS.map((k) => k.kid)).to.deep.equal(['new', 'old']);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ['PORT', { PORT: 'eighty' }, /PORT/],
    ['PORT', { PORT: '70000' }, /PORT/],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must be a postgres:\/\/ URL/],
    ['JWT_SIGNING_KEYS', { JWT_SIGNING_KEYS: 'k1:short' }, /JWT_SIGNING_KEYS/],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    ['ENDORSEMENT_STUCK_AFTER', { ENDORSEMENT_STUCK_AFTER: 'a week' }, /ENDORSEMENT_STUCK_AFTER/],
    ['BASE_URL', { BASE_URL: 'not a url' }, /BASE_URL/],
  ];
  for (const [name, env, message] of bad) {
    it(`stops the start on a bad ${name}, naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, message);
    });
  }

  it('refuses development keys in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).to.throw(ConfigError, /must be set in production/);
  });
});
