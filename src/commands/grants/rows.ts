// One table of Grants (and code-flow companies) for `grants list` and the end of `auth login`.
import type { CompanyRecord } from '../../auth/profile.js';
import type { GrantRecord } from '../../config/store.js';
import type { Column } from '../../io/output.js';

export interface AuthorizationRow {
  id: string;
  company: string;
  taxId: string;
  scopes: string;
  stores: string;
}

export function authorizationRows(grants: readonly GrantRecord[], companies: readonly CompanyRecord[]): AuthorizationRow[] {
  return [
    ...grants.map((g) => ({
      id: g.grant_id,
      company: g.company_legal_name,
      taxId: g.tax_id,
      scopes: g.scopes.join(' '),
      stores: g.store_ids.length === 0 ? 'all' : String(g.store_ids.length),
    })),
    ...companies.map((c) => ({ id: c.merchant_id, company: c.company_legal_name, taxId: c.tax_id, scopes: c.scope, stores: 'all' })),
  ];
}

export const AUTHORIZATION_COLUMNS: readonly Column<AuthorizationRow>[] = [
  { header: 'GRANT', value: (r) => r.id, id: true },
  { header: 'COMPANY', value: (r) => r.company },
  { header: 'TAX ID', value: (r) => r.taxId },
  // A long list of words: the first to be left out on a narrow terminal (Column.drop).
  { header: 'SCOPES', value: (r) => r.scopes, drop: 1 },
  { header: 'STORES', value: (r) => r.stores },
];
