// The worker pool with stand-in workers written for each case, so which thread answered a
// job is visible in its result.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerPool } from '../../src/workers/pool.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-workers-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function worker(name: string, body: string): Promise<string> {
  const file = join(dir, `${name}.mjs`);
  await writeFile(file, `import { parentPort, threadId, workerData } from 'node:worker_threads';\n${body}\n`);
  return file;
}

const local = (job: number) => `local ${job}`;

describe('createWorkerPool', () => {
  it('answers every job, spread over the workers', async () => {
    const file = await worker('echo', "parentPort.on('message', ({ id, job }) => parentPort.postMessage({ id, result: `${workerData.tag} ${threadId} ${job}` }));");
    const pool = createWorkerPool<number, string>({ workerFile: file, workerData: { tag: 'w' }, size: 3, local });
    try {
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => pool.run(i)));
      results.forEach((r, i) => expect(r).toMatch(new RegExp(`^w \\d+ ${i}$`)));
      expect(new Set(results.map((r) => r.split(' ')[1])).size).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('shares the jobs with this thread when asked to, each answered once', async () => {
    // A slow worker: this thread takes whatever the worker has no room for.
    const slow = await worker(
      'slow',
      "parentPort.on('message', ({ id, job }) => { const until = Date.now() + 5; while (Date.now() < until); parentPort.postMessage({ id, result: `worker ${job}` }); });",
    );
    const pool = createWorkerPool<number, string>({ workerFile: slow, size: 1, local, shareThisThread: true });
    try {
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.run(i)));
      results.forEach((r, i) => expect(r).toMatch(new RegExp(`^(worker|local) ${i}$`)));
      expect(results.filter((r) => r.startsWith('worker')).length).toBeGreaterThan(0);
      expect(results.filter((r) => r.startsWith('local')).length).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it('runs the jobs on this thread without a worker file or workers', async () => {
    for (const pool of [
      createWorkerPool<number, string>({ workerFile: undefined, size: 2, local }),
      createWorkerPool<number, string>({ workerFile: join(dir, 'unused.mjs'), size: 0, local }),
    ]) {
      expect(await Promise.all([1, 2, 3].map((n) => pool.run(n)))).toEqual(['local 1', 'local 2', 'local 3']);
      await pool.close();
    }
  });

  it('hands the jobs of a worker that dies to the others, and to this thread when none is left', async () => {
    // The second thread exits on its first job; the others answer.
    const dying = await worker(
      'dying',
      "parentPort.on('message', ({ id, job }) => { if (threadId % 2 === 0) process.exit(1); parentPort.postMessage({ id, result: `worker ${job}` }); });",
    );
    const pool = createWorkerPool<number, string>({ workerFile: dying, size: 2, local });
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.run(i)));
      results.forEach((r, i) => expect(r).toMatch(new RegExp(`^(worker|local) ${i}$`)));
      expect(results.some((r) => r.startsWith('worker'))).toBe(true);
    } finally {
      await pool.close();
    }
    const broken = await worker('broken', "throw new Error('cannot start');");
    const none = createWorkerPool<number, string>({ workerFile: broken, size: 2, local });
    expect(await Promise.all([7, 8].map((n) => none.run(n)))).toEqual(['local 7', 'local 8']);
    await none.close();
  });

  it('rejects a job that fails on this thread', async () => {
    const pool = createWorkerPool<number, string>({
      workerFile: undefined,
      size: 0,
      local: () => {
        throw new Error('bad job');
      },
    });
    await expect(pool.run(1)).rejects.toThrow('bad job');
  });
});
