// Units that are counted, not measured (UN/ECE Recommendation 20 codes of UNIT_CODES): a
// piece, a pair, a box, a bottle, a pack... Half a carton of milk cannot be bought, returned
// or credited, so a quantity in one of these must be a whole number — in a receipt's or
// credit note's products, in a return request, and in what `credit-note issue` credits.

export const COUNTABLE_UNIT_CODES: ReadonlySet<string> = new Set([
  'C62', // one (piece)
  'EA', // each
  'SET', // set
  'PR', // pair
  'DZN', // dozen
  'NMP', // number of packs
  'XPK', // package
  'BX', // box
  'CT', // carton
  'CS', // case
  'PK', // pack
  'PF', // pallet
  'BO', // bottle
  'CA', // can
  'BG', // bag
]);

/** Why this quantity cannot be in this unit, or undefined: "must be a whole number: C62 is counted". */
export function countableQuantityProblem(unitCode: string | undefined, quantity: number): string | undefined {
  if (unitCode === undefined || !COUNTABLE_UNIT_CODES.has(unitCode) || Number.isInteger(quantity)) return undefined;
  return `must be a whole number: ${unitCode} is a unit that is counted, not measured (got ${quantity})`;
}
