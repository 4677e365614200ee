import type { Check } from '../../api.ts';
import { formatMs, formatTime } from '../../format.ts';
import { checkResult } from './MonitorHistory.tsx';

/** How many checks the strip of a row shows. */
export const STRIP_CHECKS = 30;

const titleOf = (c: Check) => {
  const what =
    c.heartbeat === 'missed'
      ? `Missed beat${c.error === null ? '' : `: ${c.error}`}`
      : c.heartbeat === 'beat'
        ? `Beat${c.ok ? '' : `, the job failed: ${c.error ?? 'no message'}`}`
        : checkResult(c);
  return `${formatTime(c.checked_at)}: ${what}${c.heartbeat === 'missed' ? '' : ` in ${formatMs(c.response_ms)}`}`;
};

const outcome = (failed: number) => (failed === 0 ? 'all OK' : `${failed} failed`);

/** The last checks of a monitor as small bars, oldest left, newest right: green OK, red failed,
 *  empty slots before the first check. Each bar's title says its time and result. */
export const CheckStrip = ({ checks, name }: { checks: Check[] | undefined; name: string }) => {
  const shown = (checks ?? []).slice(0, STRIP_CHECKS).reverse();
  const failed = shown.filter((c) => !c.ok).length;
  const label =
    checks === undefined
      ? `Last checks of ${name}: loading`
      : shown.length === 0
        ? `No check of ${name} yet`
        : `${shown.length === 1 ? 'The last check' : `Last ${shown.length} checks`} of ${name}: ${outcome(failed)}`;
  return (
    <div className="check-strip" role="img" aria-label={label} data-checks={shown.length}>
      {Array.from({ length: STRIP_CHECKS - shown.length }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: empty slots, all alike
        <span key={`empty-${i}`} className="strip-bar blank" />
      ))}
      {shown.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: two checks can share a time; the bars hold no state
        <span key={`${c.checked_at}-${i}`} className={`strip-bar ${c.ok ? 'ok' : 'failed'}`} title={titleOf(c)} />
      ))}
    </div>
  );
};
