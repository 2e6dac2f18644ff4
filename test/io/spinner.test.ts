import { describe, expect, it } from 'vitest';
import { withSpinner } from '../../src/io/spinner.js';
import { terminalColumns } from '../../src/io/terminal-columns.js';
import { testStreams } from '../../src/io/test-streams.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withSpinner', () => {
  it('draws nothing where stderr may not be redrawn', async () => {
    const t = testStreams({ redraw: false });
    expect(await withSpinner(t.io, 'working', () => wait(300).then(() => 42))).toBe(42);
    expect(t.stderr()).toBe('');
  });

  it('draws one line per frame, cut to the width (80 when the terminal reports none), and clears it', async () => {
    const t = testStreams({ redraw: true });
    Object.assign(t.io.stderr, { columns: 0 });
    await withSpinner(t.io, 'x'.repeat(500), () => wait(400));
    const frames = t.stderr().split('\r\u001b[2K').filter(Boolean);
    expect(frames.length).toBeGreaterThan(1);
    expect(frames.length).toBeLessThan(10);
    for (const frame of frames) expect(frame.length).toBeLessThanOrEqual(79);
    expect(t.stderr().endsWith('\r\u001b[2K')).toBe(true);
  });

  it('quick work shows nothing', async () => {
    const t = testStreams({ redraw: true });
    await withSpinner(t.io, 'working', () => wait(10));
    expect(t.stderr()).toBe('');
  });
});

describe('terminalColumns', () => {
  it('takes 80 for a terminal of 0 columns or none', () => {
    expect(terminalColumns(Object.assign(testStreams().io.stderr, { columns: 0 }))).toBe(80);
    expect(terminalColumns(testStreams().io.stderr)).toBe(80);
    expect(terminalColumns(Object.assign(testStreams().io.stderr, { columns: 33 }))).toBe(33);
  });
});
