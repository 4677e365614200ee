import { useState } from 'react';

/** Copies a value; says "Copied" where it happened, or in words why the browser refused. */
export const CopyButton = ({ value, label }: { value: string; label: string }) => {
  const [state, setState] = useState<'idle' | 'copied' | string>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch (err) {
      setState(
        `The browser did not allow copying (${err instanceof Error ? err.message : String(err)}): select ` +
          `the text and copy it by hand.`,
      );
    }
  };
  return (
    <span className="copy">
      <button type="button" onClick={() => void copy()} aria-label={label}>
        Copy
      </button>
      <span role="status" aria-live="polite" className={state === 'copied' ? 'copied' : 'field-error'}>
        {state === 'idle' ? '' : state === 'copied' ? 'Copied' : state}
      </span>
    </span>
  );
};
