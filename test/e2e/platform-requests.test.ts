// `credit-note accept|reject|complete A B` where A and B are requests of two companies, found
// by a poll over many (`poll --all-grants`): each is moved under its own company's Grant.
// Before, the IDs of several companies were all sent under the profile's default Grant, and
// every one of them was "no return request" (exit 6).
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';

interface StoredGrant {
  grant_id: string;
  company_legal_name: string;
}

describe('moving requests of several companies in one command', () => {
  const { merchant } = useMerchant(['--companies', '3']);

  it('accept, then complete, A (company 2) and B (company 3), found by poll --all-grants, each under its own Grant', async () => {
    const m = merchant();
    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const requests: string[] = [];
    for (const g of [grants[1]!, grants[2]!]) {
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--grant', g.grant_id]);
      requests.push((await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim());
    }
    await m.svc(['credit-note', 'poll', '--all-grants', '--no-decrypt']);

    // By prefixes, as a person types them.
    const accepted = await runSvc(['credit-note', 'accept', ...requests.map((id) => id.slice(0, 8)), '--json'], { home: m.home, env: m.env });
    expect(accepted.exitCode, `${accepted.stdout}\n${accepted.stderr}`).toBe(0);
    expect((JSON.parse(accepted.stdout) as { requestId: string; status: string }[]).map((r) => [r.requestId, r.status])).toEqual(requests.map((id) => [id, 'ACCEPTED']));

    const completed = await runSvc(['credit-note', 'complete', ...requests, '--yes', '--credited-elsewhere'], { home: m.home, env: m.env });
    expect(completed.exitCode, `${completed.stdout}\n${completed.stderr}`).toBe(0);
    expect(completed.stdout.trim().split('\n')).toEqual(requests.map((id) => `${id} COMPLETED`));
  });
});

describe('a request found by poll --all-grants, after a new login that replaced the Grants', () => {
  const { merchant } = useMerchant(['--companies', '3']);

  it('accept REQ of a company that is not the default moves it under that company\'s new Grant', async () => {
    const m = merchant();
    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--grant', grants[2]!.grant_id]);
    const request = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    await m.svc(['credit-note', 'poll', '--all-grants', '--no-decrypt']);
    await m.svc(['sandbox', 'login']);
    const after = await m.json<StoredGrant[]>(['grants', 'list']);
    expect(after.map((g) => g.grant_id).filter((id) => grants.some((g) => g.grant_id === id))).toEqual([]);

    const accepted = await runSvc(['credit-note', 'accept', request.slice(0, 8), '--json'], { home: m.home, env: m.env });
    expect(accepted.exitCode, `${accepted.stdout}\n${accepted.stderr}`).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ requestId: request, status: 'ACCEPTED' });
  });
});

describe('credit-note poll --grant of a revoked Grant', () => {
  const { merchant } = useMerchant(['--companies', '3']);

  it('names the company as well as the Grant ID, as a fan-out does', async () => {
    const m = merchant();
    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const revoked = grants[1]!;
    await m.svc(['sandbox', 'revoke', revoked.grant_id]);
    const r = await runSvc(['credit-note', 'poll', '--grant', revoked.grant_id], { home: m.home, env: m.env });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(revoked.grant_id);
    expect(r.stderr).toContain(revoked.company_legal_name);
    const json = await runSvc(['credit-note', 'poll', '--grant', revoked.grant_id, '--json'], { home: m.home, env: m.env });
    expect(json.exitCode).toBe(4);
    expect(json.stdout + json.stderr).toContain(revoked.company_legal_name);
    // A fan-out names it at the start of the line: the message itself stays the same for every
    // company (equal failures of many are one line).
    const all = await runSvc(['credit-note', 'poll', '--all-grants'], { home: m.home, env: m.env });
    expect(all.exitCode).toBe(9);
    expect(all.stderr).toContain(`error: ${revoked.company_legal_name} (${revoked.grant_id}): the service refused Grant ${revoked.grant_id}: `);
  });
});
