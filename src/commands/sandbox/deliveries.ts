import { SandboxDeliveryList } from '../../contract/accept-generated.js';
import type { SandboxDelivery } from '../../contract/sandbox-inspect.js';
import { NotFoundError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeList, type Column } from '../../io/output.js';
import { resolveReceiptId } from '../../receipts/receipt-id.js';
import { sandboxRequest } from './request.js';

export interface DeliveriesOptions {
  serviceReceiptId?: string | undefined;
}

const COLUMNS: readonly Column<SandboxDelivery>[] = [
  { header: 'SERVICE RECEIPT ID', value: (d) => d.serviceReceiptId, id: true },
  { header: 'KIND', value: (d) => d.kind },
  { header: 'RECIPIENT', value: (d) => d.recipientId, id: true },
  { header: 'STATUS', value: (d) => d.status },
  { header: 'FINAL HASH', value: (d) => (d.hashMatches === undefined ? '-' : d.hashMatches ? 'matches' : 'DIFFERS') },
  { header: 'REASON', value: (d) => d.reason ?? '', flex: true },
];

export async function run(opts: DeliveriesOptions, f: Factory): Promise<void> {
  const serviceReceiptId = opts.serviceReceiptId === undefined ? undefined : await resolveReceiptId(f, opts.serviceReceiptId);
  const deliveries = await sandboxRequest(
    f,
    { method: 'GET', path: '/sandbox/deliveries', query: { serviceReceiptId }, schema: SandboxDeliveryList },
    // An ID that matched nothing here was passed on: the sandbox knows no such document.
    serviceReceiptId === undefined
      ? undefined
      : (baseUrl, cause) =>
          new NotFoundError(`${baseUrl} has no receipt or credit note ${serviceReceiptId}`, {
            hint: 'check the ID with `svc receipt list`, and that the base URL is a sandbox (`svc sandbox start`)',
            cause,
          }),
  );
  await writeList(f.io, deliveries, COLUMNS);
}
