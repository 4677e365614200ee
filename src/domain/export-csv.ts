import type { StoredAuditEvent } from './audit-event.ts';

/** The export's CSV columns: every list field (SPEC 2.2) and every ingest field (SPEC 2.1), in a
 *  fixed order; object and array fields hold JSON. New columns are only ever appended. */
export const CSV_COLUMNS = [
  'id',
  'timestamp',
  'project_id',
  'event_type',
  'method',
  'path',
  'status_code',
  'response_time',
  'identifier',
  'service_name',
  'environment',
  'source',
  'user_email',
  'user_name',
  'user_roles',
  'user_type',
  'tenant_id',
  'ip',
  'user_agent',
  'request_id',
  'session_id',
  'error_message',
  'query_params',
  'path_params',
  'request_body',
  'response_body',
] as const satisfies ReadonlyArray<keyof StoredAuditEvent>;

/** A spreadsheet may run a cell that starts with one of these as a formula (CSV injection):
 *  OWASP's list (`=`, `+`, `-`, `@`, tab, carriage return) and the full-width forms of the first
 *  four (U+FF1D, U+FF0B, U+FF0D, U+FF20), which Apple Numbers reads as the ASCII ones. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** A guarded cell is the value with a single quote in front (`=1+2` → `'=1+2`, tab `=1` → `'` tab
 *  `=1`): spreadsheets show it as text, and dropping that first `'` gives the stored value back. */
export const guardFormula = (cell: string): string => (FORMULA_START.test(cell) ? `'${cell}` : cell);

/** One CSV row: empty for absent fields, JSON for objects and arrays, guarded text. Numbers are
 *  written as they are: a negative number is a number, never a formula. */
export const toCsvRow = (event: StoredAuditEvent): string[] =>
  CSV_COLUMNS.map((column) => {
    const value: unknown = event[column];
    if (value === undefined || value === null) return '';
    if (typeof value === 'object') return guardFormula(JSON.stringify(value));
    return typeof value === 'string' ? guardFormula(value) : String(value);
  });
