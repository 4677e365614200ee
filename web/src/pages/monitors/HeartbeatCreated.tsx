import { useEffect, useRef } from 'react';
import { CopyButton } from '../../components/CopyButton.tsx';

/** The line a job's crontab or script ends with: quiet, fails on an error status, 10 s at most,
 *  three retries. */
export const curlLine = (url: string) => `curl -fsS -m 10 --retry 3 ${url}`;

/** A new heartbeat monitor's URL, once: watchlog keeps only a hash of its token. */
export const HeartbeatCreated = ({ name, url, onDone }: { name: string; url: string; onDone: () => void }) => {
  const heading = useRef<HTMLHeadingElement>(null);
  // The form that had the focus is gone: the reader lands on what to copy.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="panel heartbeat-created" aria-labelledby="heartbeat-created-heading">
      <h2 id="heartbeat-created-heading" ref={heading} tabIndex={-1}>
        Heartbeat URL of {name}
      </h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> watchlog keeps only a hash of its token; to get a new
        URL, add the monitor again.
      </p>
      <div className="row">
        <figure className="snippet" aria-label="Heartbeat URL">
          <code>{url}</code>
        </figure>
        <CopyButton value={url} label="Copy the heartbeat URL" />
      </div>
      <p>
        Have the job call it each time it succeeds, with GET or POST. <code>?status=down&amp;msg=…</code> reports a
        failure and <code>?ping=&lt;ms&gt;</code> its duration. The monitor goes DOWN when no beat comes within its
        interval and grace:
      </p>
      <div className="row">
        <figure className="snippet" aria-label="Heartbeat curl command">
          <pre>{curlLine(url)}</pre>
        </figure>
        <CopyButton value={curlLine(url)} label="Copy the curl command" />
      </div>
      <button type="button" className="primary" onClick={onDone}>
        Done, I have copied it
      </button>
    </section>
  );
};
