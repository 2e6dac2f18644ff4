// triage's summary: each request counted once, by what this walk did to it.
import { describe, expect, it } from 'vitest';
import { emptyTally, summaryFields } from '../../src/credit-notes/triage-tally.js';

describe('triage summary', () => {
  it('a request completed on a credit note issued before is "completed, already credited", not issued, not skipped; one closed by a colleague is changed elsewhere', () => {
    const tally = emptyTally(3);
    tally.reached.push('aaaaaaaa-1', 'bbbbbbbb-2', 'cccccccc-3');
    tally.credited.push({ requestId: 'aaaaaaaa-1', documentNumber: 'CN-R-1-1' });
    tally.issued.push({ requestId: 'bbbbbbbb-2', documentNumber: 'CN-R-1-2', serviceReceiptId: 'sr-2' });
    tally.elsewhere.push('cccccccc-3');
    const fields = Object.fromEntries(summaryFields(tally, 'on this machine only'));
    expect(fields).toMatchObject({
      issued: '1: CN-R-1-2 (request bbbbbbbb, credit note ID sr-2)',
      'completed, already credited': '1: aaaaaaaa (by CN-R-1-1)',
      'changed elsewhere': '1: cccccccc',
      skipped: '0',
    });
  });
});
