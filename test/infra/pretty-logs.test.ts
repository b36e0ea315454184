import { expect } from 'chai';
import { prettyLines } from '../../infra/pretty-logs.js';

describe('npm start: log lines of several processes in one terminal', () => {
  const time = new Date(2026, 0, 2, 9, 5, 7, 42).getTime();

  it('shows a JSON log line readable, behind the name of its process', () => {
    const format = prettyLines('api', 6);
    expect(format(JSON.stringify({ level: 30, time, msg: 'listening', port: 3000 }))).to.equal(
      'api    | [09:05:07.042] INFO: listening\napi    |     port: 3000',
    );
    expect(prettyLines('worker', 6)(JSON.stringify({ level: 40, time, msg: 'retrying' }))).to.equal(
      'worker | [09:05:07.042] WARN: retrying',
    );
  });

  it('passes other output through with the prefix', () => {
    const format = prettyLines('worker', 6);
    expect(format('Invalid configuration:')).to.equal('worker | Invalid configuration:');
    expect(format('{not json')).to.equal('worker | {not json');
    expect(format('{"a":1}')).to.equal('worker | {"a":1}');
  });
});
