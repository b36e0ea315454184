import { expect } from 'chai';
import { explainPostgresFailure } from '../../infra/postgres.js';

describe('embedded PostgreSQL started as root', () => {
  const WHAT_TO_DO =
    'Set DATA_DIR to a directory the postgres user can reach (e.g. DATA_DIR=/tmp/group-health npm start)';

  it('explains a bare spawn EACCES: the postgres user cannot reach the files', () => {
    const spawnError = Object.assign(new Error('spawn /root/app/node_modules/.../bin/initdb EACCES'), {
      code: 'EACCES',
    });
    const explained = explainPostgresFailure(spawnError, '/root/app/.data/postgres', true).message.split(
      '\n',
    );
    expect(explained[0]).to.equal(
      'embedded PostgreSQL could not start (spawn /root/app/node_modules/.../bin/initdb EACCES): run as root, it runs as the `postgres` user, which cannot reach its files.',
    );
    expect(explained[1]).to.contain(WHAT_TO_DO);
    expect(explained.at(-1)).to.equal('(data directory: /root/app/.data/postgres)');
  });

  it("explains initdb's permission denied on a data directory it cannot enter", () => {
    const initdb = new Error(
      'Postgres init script failed (code: 1, signal: null). ERROR OUTPUT: initdb: error: could not access directory "/srv/locked/data": Permission denied\n',
    );
    expect(explainPostgresFailure(initdb, '/srv/locked/data', true).message).to.contain(WHAT_TO_DO);
  });

  it('passes other failures, and any failure of a non-root user, through unchanged', () => {
    const portTaken = new Error('Postgres init script failed: could not bind IPv4 address');
    expect(explainPostgresFailure(portTaken, '/tmp/d', true)).to.equal(portTaken);
    const denied = Object.assign(new Error('spawn initdb EACCES'), { code: 'EACCES' });
    expect(explainPostgresFailure(denied, '/tmp/d', false)).to.equal(denied);
  });
});
