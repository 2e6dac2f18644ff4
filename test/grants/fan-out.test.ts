// The fan-out over Grants (src/grants/fan-out.ts): at most N at once, each run acting for its
// own Grant, a failure kept to its Grant, one pacer for the whole run, progress only where
// stderr may be redrawn.
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient, ApiClientOptions } from '../../src/api/client.js';
import type { GrantEntry } from '../../src/auth/grant-select.js';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { createFactory, type Factory } from '../../src/factory.js';
import { createPacer, fanOut } from '../../src/grants/fan-out.js';
import { testStreams } from '../../src/io/test-streams.js';

type Hooks = Required<Pick<ApiClientOptions, 'sleep' | 'beforeAttempt'>>;

function make(io: Partial<Parameters<typeof testStreams>[0]> = {}) {
  const t = testStreams(io);
  let hooks: Hooks | undefined;
  const api = {
    baseUrl: 'http://svc.test',
    paced(given: Hooks) {
      hooks = given;
      return api;
    },
    close: async () => undefined,
  } as unknown as ApiClient;
  const f = createFactory({
    env: { SVC_BASE_URL: 'http://127.0.0.1:9' },
    globals: { json: false, input: false, debug: false, color: false },
    io: t.io,
    config: memoryConfigStore({}),
    api,
    clock: fixedClock(0),
  });
  return { f, t, hooks: () => hooks! };
}

const targets: GrantEntry[] = Array.from({ length: 12 }, (_, i) => ({ id: `g-${i}`, companyId: `c-${i}`, company: `Company ${i}`, taxId: `T${i}` }));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fanOut', () => {
  it('runs at most N at once, each as --grant would; a failure stays its Grant\'s; results in the targets\' order', async () => {
    const { f } = make();
    let running = 0;
    let most = 0;
    const result = await fanOut(
      f,
      targets,
      async (g: Factory, target) => {
        running += 1;
        most = Math.max(most, running);
        await pause(5);
        running -= 1;
        const settings = await g.settings();
        expect(settings.grant).toEqual({ value: target.id, source: 'flag' });
        if (target.id === 'g-5') throw new Error('revoked');
        return target.companyId;
      },
      { concurrency: 3, what: 'testing' },
    );
    expect(most).toBe(3);
    expect(result.ok.map((r) => r.value)).toEqual(targets.filter((t) => t.id !== 'g-5').map((t) => t.companyId));
    expect(result.failed.map((r) => [r.target.id, (r.error as Error).message])).toEqual([['g-5', 'revoked']]);
  });

  it('one wait told to a request (a Retry-After) holds every other request of the run', async () => {
    const { f, hooks } = make();
    const sentAt: number[] = [];
    const start = performance.now();
    await fanOut(
      f,
      targets.slice(0, 4),
      async (_g, target) => {
        if (target.id === 'g-0') return hooks().sleep(300);
        await pause(20);
        await hooks().beforeAttempt();
        sentAt.push(performance.now() - start);
      },
      { concurrency: 4, what: 'testing' },
    );
    expect(sentAt).toHaveLength(3);
    for (const at of sentAt) expect(at).toBeGreaterThanOrEqual(290);
  });

  it('after waits at their longest (an outage), the run is back to full speed within ~35 attempts, not a minute at one a second', async () => {
    vi.useFakeTimers();
    try {
      const pacer = createPacer(() => Date.now());
      // Six waves of waits told (503s with Retry-After): the spacing at its longest, 2 s.
      for (let i = 0; i < 6; i++) {
        const held = pacer.sleep(1);
        await vi.runAllTimersAsync();
        await held;
      }
      // The outage over: attempts one after the other, each let through when its slot comes.
      const at: number[] = [];
      for (let i = 0; i < 40; i++) {
        const gate = pacer.gate();
        await vi.runAllTimersAsync();
        await gate;
        at.push(Date.now());
      }
      const gaps = at.slice(1).map((t, i) => t - at[i]!);
      expect(gaps[0]).toBeGreaterThanOrEqual(1000);
      // Back to full speed: the last gaps under 5 ms, the 40 attempts within ~10 s (0.97 a step took ~66 s).
      expect(gaps.slice(-3).every((g) => g < 5)).toBe(true);
      expect(at.at(-1)! - at[0]!).toBeLessThan(12_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows done/total on a terminal that may be redrawn, and nothing elsewhere', async () => {
    const slow = async () => pause(250);
    const terminal = make({ redraw: true, stderrIsTTY: true });
    await fanOut(terminal.f, targets.slice(0, 3), slow, { concurrency: 1, what: 'polling' });
    expect(terminal.t.stderr()).toMatch(/polling: [12]\/3 Grants/);
    expect(terminal.t.stderr().endsWith('\r\x1b[K')).toBe(true);
    const pipe = make();
    await fanOut(pipe.f, targets.slice(0, 3), slow, { concurrency: 1, what: 'polling' });
    expect(pipe.t.stderr()).toBe('');
  });
});
