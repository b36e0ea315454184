/**
 * An operator's command refused for a reason the operator can fix (an unknown client, a bad flag, a
 * renewal that cannot start): the use case says why, `admin`/`ops` print the message and exit 2.
 */
export class OperatorRefusal extends Error {}
