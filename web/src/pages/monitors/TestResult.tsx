import type { Check } from '../../api.ts';
import { formatMs, formatTime } from '../../format.ts';
import { OP_NAMES, SOURCE_NAMES } from './form-values.ts';
import { checkResult } from './MonitorHistory.tsx';

type Certificate = NonNullable<Check['certificate']>;
type AssertionResult = NonNullable<Check['assertions']>[number];

/** Whole days until the certificate expires (negative once it has). */
export const daysLeft = (validTo: string, now = Date.now()): number =>
  Math.floor((Date.parse(validTo) - now) / 86_400_000);

export const daysLeftText = (validTo: string, now = Date.now()): string => {
  const days = daysLeft(validTo, now);
  if (days < 0) return `expired ${-days} d ago`;
  return days === 1 ? '1 day left' : `${days} days left`;
};

const assertionText = (a: AssertionResult) =>
  [SOURCE_NAMES[a.source], a.path, OP_NAMES[a.op], a.value === undefined || a.value === null ? '' : String(a.value)]
    .filter((s) => s !== undefined && s !== '')
    .join(' ');

/** A certificate as a check saw it: who issued it, the names it covers, when it expires. */
export const CertificateSeen = ({ cert }: { cert: Certificate }) => (
  <dl className="certificate" aria-label="Certificate">
    <dt>Issuer</dt>
    <dd>{cert.issuer}</dd>
    <dt>Names</dt>
    <dd>{cert.names.length === 0 ? cert.subject : cert.names.join(', ')}</dd>
    <dt>Expires</dt>
    <dd className={daysLeft(cert.valid_to) <= 14 ? 'check-failed' : undefined}>
      {formatTime(cert.valid_to)} ({daysLeftText(cert.valid_to)})
    </dd>
  </dl>
);

/** What Test now saw: the outcome as the history says it, each assertion's result with what was
 *  received, the certificate and the DNS records when there were some. */
export const TestResult = ({ check }: { check: Check }) => (
  <div className="test-outcome">
    <p className={check.ok ? 'check-ok' : 'check-failed'}>
      Test at {new Date(check.checked_at).toLocaleTimeString()}: {checkResult(check)} in {formatMs(check.response_ms)}
      {check.ok ? '' : ' (not recorded: the state changes only with scheduled checks)'}
    </p>
    {check.assertions !== undefined && check.assertions.length > 0 && (
      <ul className="assertion-results" aria-label="Assertion results">
        {check.assertions.map((a, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the results are in the monitor's order and hold no state
          <li key={i} className={a.passed ? 'check-ok' : 'check-failed'}>
            <strong>{a.passed ? 'Passed' : 'Failed'}</strong>: {assertionText(a)}{' '}
            <span className="muted">(received {a.received === null ? 'nothing' : <code>{a.received}</code>})</span>
          </li>
        ))}
      </ul>
    )}
    {check.certificate !== undefined && <CertificateSeen cert={check.certificate} />}
    {check.dns_records !== undefined && (
      <p>
        DNS records: {check.dns_records.length === 0 ? 'none' : check.dns_records.map((r) => <code key={r}>{r} </code>)}
      </p>
    )}
  </div>
);
