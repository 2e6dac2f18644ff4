// Recipient management: `POST /recipient/resolve` (docs/interface-decisions.md#recipient-resolution).
import { ResolveRecipientRequest } from '../../contract/recipient.js';
import type { Sandbox } from '../context.js';
import { authorize } from '../guard.js';
import { findCustomer, issueMatch, normaliseLookup } from '../recipients.js';
import { HttpError, json, validated, type Router } from '../router.js';
import { counted } from '../../io/plural.js';

const LOOKUP_KEYS = ['email', 'phone', 'iban', 'cardNumber', 'serviceReceiptId'] as const;

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/recipient/resolve', (req) => {
    const caller = authorize(sandbox, req, { scope: 'write_receipts' , apiKey: true });
    const request = validated(ResolveRecipientRequest, normaliseLookup(req.body), 'the request body');
    const customer = findCustomer(sandbox, caller.companyId, request);
    // Which identifiers were tried, never their values.
    const by = LOOKUP_KEYS.filter((key) => request[key] !== undefined).join('+');
    if (!customer) {
      sandbox.log(`recipient resolve by ${by}: no match`);
      throw new HttpError('not_found', 'no recipient matches these details');
    }
    const devices = sandbox.state.devicesOf(customer.id);
    const match = issueMatch(sandbox, caller.companyId, customer, devices);
    sandbox.log(`recipient resolve by ${by}: ${counted(devices.length, 'device')}`);
    return json(200, {
      matchId: match.matchId,
      recipients: devices.map((device) => ({
        recipientId: device.id,
        receiverType: 'DEVICE',
        publicKey: device.publicKey,
        keyAlgorithm: device.keyAlgorithm,
      })),
      acceptedFormats: customer.acceptedFormats,
    });
  });
}
