// Worker thread entry of the decryption pool (src/crypto/decrypt-pool.ts). Built as its own
// file (scripts/build.mjs) because `new Worker()` loads a path, not a module of the bundle.
import { parentPort, workerData } from 'node:worker_threads';
import { decryptOutcome, type BatchRequest, type BatchResult, type WorkerSetup } from './decrypt-batch.js';

const { keys } = workerData as WorkerSetup;
const port = parentPort;
if (port === null) throw new Error('decrypt-worker.js runs only as a worker thread');

port.on('message', (request: BatchRequest) => {
  const result: BatchResult = { batch: request.batch, outcomes: request.items.map((item) => decryptOutcome(item, keys)) };
  port.postMessage(result);
});
