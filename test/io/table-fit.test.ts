// One rule for fitting every table (tableLines, under writeList and the queue screen): IDs give
// way first, to the shortest prefix that tells them apart (at least 8), before a name or a note
// is cut, and a wider terminal never shows less of any column.
import { describe, expect, it } from 'vitest';
import { tableLines, uniquePrefixLength, type Column } from '../../src/io/output.js';

interface Row {
  grant: string;
  company: string;
  store: string;
  note: string;
}

// 50 companies as a platform sees them: UUIDs, long names sharing their start, store IDs that share 8 characters.
const rows: Row[] = Array.from({ length: 50 }, (_, i) => ({
  grant: `${(0x1000 + i * 7919).toString(16).padStart(8, '0')}-4e1d-4b7a-9c3e-${String(i).padStart(12, '0')}`,
  company: `Platform Shop ${String(i).padStart(5, '0')} GmbH`,
  store: `50000000-0000-4000-8000-${String(i * 37).padStart(12, '0')}`,
  note: i % 2 === 0 ? 'headphones crackle on the left side' : 'wrong size',
}));
const columns: Column<Row>[] = [
  { header: 'GRANT ID', value: (r) => r.grant, id: true },
  { header: 'COMPANY', value: (r) => r.company, flex: true },
  { header: 'STORE', value: (r) => r.store, id: true },
  { header: 'NOTE', value: (r) => r.note, flex: true },
];
const io = { color: false };

/** What each cell shows of its value, in characters (an ID's prefix, text before its …). */
function shown(line: string, starts: number[]): string[] {
  return starts.map((start, k) => line.slice(start, k + 1 < starts.length ? starts[k + 1] : undefined).trim().replace(/…$/, ''));
}

async function cellsAt(width: number): Promise<{ headers: string[]; cells: string[][]; lines: string[] }> {
  const table = await tableLines(io, rows, columns, width);
  const headers = table.header.split(/ {2,}/).filter(Boolean);
  const starts = headers.map((h) => table.header.indexOf(h));
  return { headers, cells: table.rows.map((l) => shown(l, starts)), lines: [table.header, ...table.rows] };
}

describe('fitting a table', () => {
  it('the shortest unique prefix, at least 8', () => {
    expect(uniquePrefixLength(['50000000-0000-4000-8000-000000000001', '50000000-0000-4000-8000-000000000002'], 8)).toBe(36);
    expect(uniquePrefixLength(['abcdef12-x', 'abcdef13-x', 'bbbbbbbb-x'], 8)).toBe(8);
    expect(uniquePrefixLength(['abcdefgh1', 'abcdefgh2'], 8)).toBe(9);
    expect(uniquePrefixLength(['same', 'same'], 8)).toBe(4);
  });

  it('IDs give way before names and notes; each shown ID still tells its rows apart; a wider terminal never shows less (60 to 250 columns)', async () => {
    let before: { headers: string[]; cells: string[][] } | undefined;
    for (let width = 60; width <= 250; width++) {
      const { headers, cells, lines } = await cellsAt(width);
      for (const line of lines) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      for (const [k, h] of headers.entries()) {
        if (h !== 'GRANT ID' && h !== 'STORE') continue;
        // Distinct values stay distinct, whatever the width.
        expect(new Set(cells.map((c) => c[k])).size, `${h} at ${width}`).toBe(50);
        expect(cells.every((c) => (c[k] ?? '').length >= 8), `${h} at ${width}`).toBe(true);
      }
      const company = headers.indexOf('COMPANY');
      const grant = headers.indexOf('GRANT ID');
      // A name is cut only once the Grant IDs are at their prefix.
      if (company >= 0 && cells.some((c) => c[company] !== rows[cells.indexOf(c)]?.company)) {
        expect(cells.every((c) => (c[grant] ?? '').length < 36), `names cut with whole IDs at ${width}`).toBe(true);
      }
      // Within one set of columns, a wider terminal never shows less (a column that comes back
      // takes its room from the others: that step is checked at 60, 80, 120 and 200 below).
      if (before !== undefined && before.headers.join() === headers.join()) {
        for (const [k, h] of before.headers.entries()) {
          const now = headers.indexOf(h);
          if (now < 0) continue;
          for (const [r, row] of before.cells.entries()) {
            expect((cells[r]?.[now] ?? '').length, `${h} of row ${r} at ${width - 1} → ${width}`).toBeGreaterThanOrEqual((row[k] ?? '').length);
          }
        }
      }
      // No column shown at the narrower width is left out at the wider one.
      for (const h of before?.headers ?? []) expect(headers, `${h} at ${width}`).toContain(h);
      before = { headers, cells };
    }
    // The widths people use: each column shows at least as much at 80 as at 60, at 120 as at 80, at 200 as at 120.
    const at = await Promise.all([60, 80, 120, 200].map((w) => cellsAt(w)));
    for (let k = 1; k < at.length; k++) {
      const [narrow, wide] = [at[k - 1]!, at[k]!];
      for (const [c, h] of narrow.headers.entries()) {
        const w = wide.headers.indexOf(h);
        for (const [r, row] of narrow.cells.entries()) expect((wide.cells[r]?.[w] ?? '').length, `${h} of row ${r}`).toBeGreaterThanOrEqual((row[c] ?? '').length);
      }
    }
    // At 120 columns every company's name is whole (the IDs gave way).
    const at120 = await cellsAt(120);
    const company = at120.headers.indexOf('COMPANY');
    expect(at120.cells.map((c) => c[company])).toEqual(rows.map((r) => r.company));
  });
});
