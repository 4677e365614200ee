import { RECORD_TYPES } from './form-values.ts';
import { CheckField, type Kit, SelectField, TextField } from './field-kit.tsx';

const URL_INPUT = { type: 'url', inputMode: 'url', required: true } as const;
const SECONDS = { type: 'number', step: 1 } as const;

/** What the monitor watches, by kind: a URL, a TCP port, a DNS name, or beats from a job; then
 *  how often. */
export const KindFields = ({ kit }: { kit: Kit }) => {
  const { type } = kit.values;
  return (
    <div className="monitor-form-grid">
      {type === 'http' && (
        <TextField
          kit={kit}
          field="url"
          label="URL"
          hint="http or https; redirects are not followed unless Advanced says so."
          placeholder="https://api.example.com/health"
          {...URL_INPUT}
        />
      )}
      {type === 'tcp' && (
        <TextField
          kit={kit}
          field="url"
          label="Host and port"
          hint="tcp://host:port: UP while a connection opens."
          placeholder="tcp://db.example.com:5432"
          {...URL_INPUT}
        />
      )}
      {type === 'dns' && (
        <>
          <TextField
            kit={kit}
            field="hostname"
            label="Host name"
            hint="The name to resolve."
            placeholder="example.com"
            required
          />
          <SelectField
            kit={kit}
            field="record_type"
            label="Record type"
            options={RECORD_TYPES.map((r) => [r, r])}
            hint="Default A."
          />
          <TextField
            kit={kit}
            field="resolver"
            label="Resolver"
            hint="An IP address, with a port if not 53; empty: the system's resolver."
            placeholder="1.1.1.1"
          />
        </>
      )}
      <TextField
        kit={kit}
        field="interval_seconds"
        label="Interval (s)"
        hint={
          type === 'heartbeat'
            ? 'The job beats at least this often: 10 to 86,400 seconds; default 60.'
            : '10 to 86,400 seconds between checks; default 60.'
        }
        min={10}
        max={86_400}
        {...SECONDS}
      />
      {type === 'heartbeat' ? (
        <TextField
          kit={kit}
          field="grace_seconds"
          label="Grace (s)"
          hint="How late a beat may be before the monitor goes DOWN; default 60."
          min={0}
          max={86_400}
          {...SECONDS}
        />
      ) : (
        <TextField
          kit={kit}
          field="timeout_seconds"
          label="Timeout (s)"
          hint="1 to 120 seconds, at most the interval; default 10."
          min={1}
          max={120}
          {...SECONDS}
        />
      )}
      {type === 'http' && (
        <TextField
          kit={kit}
          field="expected_status"
          label="Expected status"
          hint="The status of a healthy answer; default 200 (or accepted statuses under Advanced)."
          min={100}
          max={599}
          {...SECONDS}
        />
      )}
      {type === 'tcp' && (
        <CheckField kit={kit} field="tls">
          Speak TLS (and read the certificate)
        </CheckField>
      )}
    </div>
  );
};
