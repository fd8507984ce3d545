/** What the console has open: the signed-in role, the account, and the cursors of its lists. */
import type { AccountDetails, AuditFilters } from './api';

export const state: {
  role?: 'admin' | 'support';
  account?: AccountDetails;
  searchCursor?: string | null;
  lastSearch?: Record<string, string>;
  ledgerCursor?: string | null;
  auditCursor?: string | null;
  auditFilters?: AuditFilters;
} = {};
