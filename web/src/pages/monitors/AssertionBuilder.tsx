import type { ReactNode } from 'react';
import {
  type AssertionRow,
  newAssertion,
  OP_NAMES,
  opsFor,
  PRESENCE,
  SOURCE_NAMES,
  SOURCES,
  type Source,
  wantsPath,
} from './form-values.ts';
import type { Kit } from './field-kit.tsx';

/** One input of an assertion row, with the server's message for it (`assertions.2.value`). */
const Cell = ({
  kit,
  path,
  label,
  children,
}: {
  kit: Kit;
  path: string;
  label: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}) => {
  const error = kit.error(path);
  return (
    <div className={`field${error === undefined ? '' : ' invalid'}`}>
      <label htmlFor={kit.id(path)}>{label}</label>
      {children({
        id: kit.id(path),
        'aria-invalid': error !== undefined,
        'aria-describedby': kit.described(path, false),
      })}
      {error !== undefined && (
        <small id={`${kit.id(path)}-error`} className="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
};

const Row = ({ kit, row, index }: { kit: Kit; row: AssertionRow; index: number }) => {
  const rows = kit.values.assertions;
  const update = (patch: Partial<AssertionRow>) =>
    kit.set({ assertions: rows.map((r) => (r.key === row.key ? { ...r, ...patch } : r)) });
  const at = (f: string) => `assertions.${index}.${f}`;
  const rowError = kit.exact(`assertions.${index}`);
  const changeSource = (source: Source) =>
    update({
      source,
      op: opsFor(source).includes(row.op) ? row.op : 'equals',
      path: wantsPath(source) ? row.path : '',
    });
  return (
    <fieldset className="assertion-row">
      <legend className="visually-hidden">Assertion {index + 1}</legend>
      <Cell kit={kit} path={at('source')} label="Source">
        {(p) => (
          <select {...p} value={row.source} onChange={(e) => changeSource(e.target.value as Source)}>
            {SOURCES[kit.values.type].map((s) => (
              <option key={s} value={s}>
                {SOURCE_NAMES[s]}
              </option>
            ))}
          </select>
        )}
      </Cell>
      {wantsPath(row.source) && (
        <Cell kit={kit} path={at('path')} label={row.source === 'json' ? 'JSONPath' : 'Header name'}>
          {(p) => (
            <input
              {...p}
              value={row.path}
              placeholder={row.source === 'json' ? '$.status' : 'content-type'}
              onChange={(e) => update({ path: e.target.value })}
            />
          )}
        </Cell>
      )}
      <Cell kit={kit} path={at('op')} label="Operator">
        {(p) => (
          <select {...p} value={row.op} onChange={(e) => update({ op: e.target.value as AssertionRow['op'] })}>
            {opsFor(row.source).map((op) => (
              <option key={op} value={op}>
                {OP_NAMES[op]}
              </option>
            ))}
          </select>
        )}
      </Cell>
      {!PRESENCE.includes(row.op) && (
        <Cell kit={kit} path={at('value')} label="Value">
          {(p) => <input {...p} value={row.value} onChange={(e) => update({ value: e.target.value })} />}
        </Cell>
      )}
      <button
        type="button"
        className="remove"
        aria-label={`Remove assertion ${index + 1}`}
        onClick={() => kit.set({ assertions: rows.filter((r) => r.key !== row.key) })}
      >
        Remove
      </button>
      {rowError !== undefined && (
        <small className="field-error wide" role="alert">
          {rowError}
        </small>
      )}
    </fieldset>
  );
};

/** Rows of source / path / operator / value: a check is OK only when every assertion holds. Only
 *  the sources of the monitor's kind are offered; the path only for JSON and headers, the value
 *  not for exists / does not exist. */
export const AssertionBuilder = ({ kit }: { kit: Kit }) => {
  const { assertions, type } = kit.values;
  if (type === 'heartbeat') return null;
  const error = kit.exact('assertions');
  return (
    <fieldset className="monitor-rows assertions" aria-describedby={`${kit.id('assertions')}-hint`}>
      <legend>Assertions</legend>
      <small id={`${kit.id('assertions')}-hint`} className="muted">
        Each must hold for a check to be OK
        {type === 'http' ? ', besides the expected status' : ''}. JSON values are read with a JSONPath such as{' '}
        <code>$.status</code>; patterns are RE2.
      </small>
      {assertions.map((row, i) => (
        <Row key={row.key} kit={kit} row={row} index={i} />
      ))}
      {error !== undefined && (
        <small className="field-error" role="alert">
          {error}
        </small>
      )}
      <div>
        <button type="button" onClick={() => kit.set({ assertions: [...assertions, newAssertion(type)] })}>
          Add assertion
        </button>
      </div>
    </fieldset>
  );
};
