// Who started a submission left under way, as the messages that resume it, wait for it or
// refuse because of it name it: a pid names a process only with its machine (on a team's
// database, the colleague's laptop), and this machine is said as such.
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { pendingSince } from '../../src/credit-notes/prepare.js';
import { startedBy } from '../../src/receipts/submission.js';

const SINCE = '2026-11-23T10:00:00.000Z';
const elsewhere = `${hostname()}-colleague`;

describe('startedBy', () => {
  it('names the machine with the pid: this one as "this machine", another by its name', () => {
    expect(startedBy({ createdAt: SINCE, pid: 4242, host: hostname() })).toBe(`since ${SINCE} (pid 4242 on this machine)`);
    expect(startedBy({ createdAt: SINCE, pid: 4242, host: elsewhere })).toBe(`since ${SINCE} (pid 4242 on ${elsewhere})`);
  });

  it('an intent an older svc wrote, without its machine: says it is not known, not that it is here', () => {
    expect(startedBy({ createdAt: SINCE, pid: 4242, host: undefined })).toBe(`since ${SINCE} (pid 4242, its machine not recorded)`);
    expect(startedBy({ createdAt: SINCE, pid: undefined, host: undefined })).toBe(`since ${SINCE}`);
  });
});

describe('pendingSince', () => {
  const credited = { requestId: 'req-1', documentNumber: 'CN-1', lines: [], templateRequest: { documentNumber: 'CN-1', currency: 'EUR', invoiceSubtotal: 1, totalAmount: 1 } };
  it('a reservation being submitted names its process and machine', () => {
    expect(pendingSince({ ...credited, pending: { since: SINCE, pid: 7, host: elsewhere } })).toBe(`since ${SINCE}, pid 7 on ${elsewhere}`);
    expect(pendingSince({ ...credited, pending: { since: SINCE, pid: 7, host: hostname() } })).toBe(`since ${SINCE}, pid 7 on this machine`);
    expect(pendingSince({ ...credited, pending: { since: SINCE, pid: 7, host: undefined } })).toBe(`since ${SINCE}, pid 7, its machine not recorded`);
  });
});
