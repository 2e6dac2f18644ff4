// Worker thread entry of the webhook decryptor (src/webhook/decryptor.ts). Built as its own
// file (scripts/build.mjs) because `new Worker()` loads a path, not a module of the bundle.
import { parentPort, workerData } from 'node:worker_threads';
import { decryptOutcome, type BatchResult, type WorkerMessage, type WorkerSetup } from './decrypt-batch.js';

let { keys } = workerData as WorkerSetup;
const port = parentPort;
if (port === null) throw new Error('decrypt-worker.js runs only as a worker thread');

port.on('message', (message: WorkerMessage) => {
  if (!('items' in message)) {
    keys = message.keys;
    return;
  }
  const result: BatchResult = { batch: message.batch, outcomes: message.items.map((item) => decryptOutcome(item, keys)) };
  port.postMessage(result);
});
