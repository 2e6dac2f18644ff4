// The stored form of an accepted part's items (docs/interface-decisions.md#partial-acceptance), read back
// from either engine through the same schema.
import * as z from '../contract/zod.js';

export const AcceptedItems = z.array(z.object({ productId: z.string().min(1), quantity: z.number().positive() })).min(1);
