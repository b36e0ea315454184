import { expect } from 'chai';
import { prepareOnConnect } from '../../db/prepared.js';
// Registers the routing's statement (data/sql.ts `prepared`), so this file alone has one to prepare.
import '../../data/insurer-exchange/cut-off.js';

describe('db: preparing a new connection', () => {
  it('closes a connection whose statements fail to prepare and refuses it to the pool', async () => {
    const refused = new Error('relation "endorsements" does not exist');
    const conn = {
      ended: false,
      sent: '',
      query(text: string, callback: (err: Error | null) => void) {
        this.sent = text;
        callback(refused);
      },
      async end() {
        this.ended = true;
      },
    };
    const answer = await new Promise<Error | null>((resolve) =>
      prepareOnConnect(conn, (err) => resolve(err)),
    );
    expect(answer).to.equal(refused);
    expect(conn.ended).to.equal(true);
    expect(conn.sent).to.match(/^prepare [a-z_]+ as /);
  });
});
