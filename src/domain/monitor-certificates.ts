import type * as t from 'io-ts';
import type { CheckResult, Certificate, MonitorState, monitorEvents } from './monitor.ts';
import { DAY_MS } from './monitor-uptime.ts';

/** Certificate warnings: once per threshold of `cert_expiry_warn_days` and certificate. Pure. */

type CertificateExpiring = t.TypeOf<typeof monitorEvents.CertificateExpiring>;

export const CERT_WARN_DAYS_DEFAULT = [14, 7, 1];

/** Whole days from `at` to the certificate's expiry (negative once expired). */
export const daysLeft = (cert: Pick<Certificate, 'valid_to'>, at: string): number =>
  Math.floor((Date.parse(cert.valid_to) - Date.parse(at)) / DAY_MS);

/** A warning when the check's certificate is within a threshold it was not yet warned of: the
 *  nearest threshold crossed, once; a renewed certificate (another expiry) starts over. */
export const decideCertificateWarning = (
  state: MonitorState,
  result: CheckResult,
): { type: 'CertificateExpiring'; data: CertificateExpiring } | null => {
  const cert = result.certificate;
  if (state.id === null || state.deleted || cert === undefined || Number.isNaN(Date.parse(cert.valid_to))) return null;
  const left = daysLeft(cert, result.checked_at);
  // Absent: a monitor of SPEC's fields alone (see decideSettings), which warns of nothing.
  const crossed = (state.settings.cert_expiry_warn_days ?? []).filter((d) => left <= d);
  if (crossed.length === 0) return null;
  const threshold = Math.min(...crossed);
  const prior = state.certWarning;
  if (prior !== null && prior.validTo === cert.valid_to && prior.threshold <= threshold) return null;
  return {
    type: 'CertificateExpiring',
    data: {
      monitor_id: state.id,
      project_id: state.projectId,
      name: state.settings.name,
      url: state.settings.url,
      checked_at: result.checked_at,
      days_left: left,
      threshold_days: threshold,
      certificate: cert,
    },
  };
};
