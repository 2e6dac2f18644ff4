// Worker thread entry for reading the return request queue (queue.ts): the keyring comes
// once as workerData, then batches as jobs. Built as its own file (scripts/build.mjs).
import { workerData } from 'node:worker_threads';
import type { KeyringEntry } from '../crypto/hybrid.js';
import { serveJobs } from '../workers/serve.js';
import { readBatch, type ReadJob, type ReadResult } from './queue-read.js';

const { keys } = workerData as { keys: KeyringEntry[] };
serveJobs<ReadJob, ReadResult>((job) => readBatch(job, keys));
