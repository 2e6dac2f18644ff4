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

  // A Grant's stores as `grants list --details` lists them: two stores of a Grant, store IDs
  // that share all but their end (the sandbox's), a long list of scopes.
  interface StoreRow {
    grant: string;
    company: string;
    store: string;
    code: string;
    name: string;
    active: string;
    scopes: string;
  }
  const stores: StoreRow[] = Array.from({ length: 6 }, (_, i) => ({
    grant: `${(0xabf25dfa + Math.floor(i / 2) * 7919).toString(16)}-af45-4eb4-9415-b3706b5893e8`,
    company: Math.floor(i / 2) === 0 ? 'Example Retail Ltd' : `Sample Foods ${Math.floor(i / 2)} GmbH`,
    store: `50000000-0000-4000-8000-0000000000${10 + i}`,
    code: `ER-00${i}`,
    name: i % 2 === 0 ? 'Market Street' : 'Harbour',
    active: 'yes',
    scopes: 'write_receipts read_stores manage_client_applications',
  }));
  const storeColumns: Column<StoreRow>[] = [
    { header: 'GRANT', value: (r) => r.grant, id: true },
    { header: 'COMPANY', value: (r) => r.company, flex: true, cut: { middle: true, min: 16 } },
    { header: 'STORE', value: (r) => r.store, id: true, drop: 1 },
    { header: 'CODE', value: (r) => r.code },
    { header: 'NAME', value: (r) => r.name, flex: true },
    { header: 'ACTIVE', value: (r) => r.active },
    { header: 'SCOPES', value: (r) => r.scopes, drop: 2 },
  ];

  it('a column left out: every ID shown is at its prefix, so a narrower terminal never shows more of an ID (40 to 250 columns)', async () => {
    let before: Map<string, number> | undefined;
    for (let width = 40; width <= 250; width++) {
      const table = await tableLines(io, stores, storeColumns, width);
      const grants = table.rows.map((l) => l.split('  ')[0] ?? '');
      const said = `${width}: ${[table.header, ...table.rows].join('\n')}`;
      if (table.dropped.length > 0) expect(grants.every((g) => g.length === 8), said).toBe(true);
      // Rows that differ read apart: a left-out store ID leaves CODE to tell them apart.
      expect(new Set(table.rows).size, said).toBe(stores.length);
      const widest = new Map(table.header.split(/ {2,}/).map((h) => [h, Math.max(...table.rows.map((l) => l.slice(table.header.indexOf(h)).split('  ')[0]!.length))] as const));
      for (const [h, w] of before ?? []) if (h === 'GRANT' || h === 'STORE') expect(widest.get(h) ?? w, `${h}, ${said}`).toBeGreaterThanOrEqual(w);
      before = widest;
    }
  });

  it('a wrapped column (Column.wrap): every value whole over more lines of its row, never cut', async () => {
    const settings = [
      { key: 'base-url', value: 'http://127.0.0.1:18787', source: 'env' },
      { key: 'scopes', value: 'write_receipts read_stores manage_client_applications', source: 'default' },
      { key: 'database-url', value: '', source: '' },
    ];
    const wrapped: Column<(typeof settings)[number]>[] = [
      { header: 'KEY', value: (r) => r.key },
      { header: 'VALUE', value: (r) => r.value, wrap: true },
      { header: 'SOURCE', value: (r) => r.source },
    ];
    for (const width of [40, 60, 80]) {
      const table = await tableLines(io, settings, wrapped, width);
      const lines = table.rows.flatMap((r) => r.split('\n'));
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(width);
      expect(lines.join('\n')).not.toContain('…');
      const at = table.header.indexOf('VALUE');
      const values = table.rows.map((r) => r.split('\n').map((l) => l.slice(at, at + l.slice(at).search(/ {2}|$/)).trim()).join(' ').trim());
      // A word broken where the column ends comes back without the space the lines add.
      const unspaced = (v: string) => v.replace(/ /g, '');
      expect(values.map(unspaced), table.rows.join('\n')).toEqual(settings.map((s) => unspaced(s.value)));
    }
    expect((await tableLines(io, settings, wrapped, 60)).rows[1]).toBe(`scopes        ${'write_receipts read_stores'.padEnd(37)}  default\n              manage_client_applications`);
  });
});
