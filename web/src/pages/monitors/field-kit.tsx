import type { InputHTMLAttributes, ReactNode } from 'react';
import type { ApiError } from '../../api.ts';
import { Field } from '../../components/ui.tsx';
import type { Values } from './form-values.ts';

/** What every piece of the monitor form needs: the ids of its fields, the server's message at a
 *  field path (or under it: `accepted_statuses.1` shows at `accepted_statuses`), and the values. */
export interface Kit {
  values: Values;
  set: (patch: Partial<Values>) => void;
  id: (path: string) => string;
  /** The server's message at `path` or under it. */
  error: (path: string) => string | undefined;
  /** The server's message at exactly `path`. */
  exact: (path: string) => string | undefined;
  /** aria-describedby of a field: its hint (when it has one) and its error. */
  described: (path: string, hint?: boolean) => string | undefined;
}

export const makeKit = (
  prefix: string,
  error: ApiError | null,
  values: Values,
  set: (patch: Partial<Values>) => void,
): Kit => {
  const id = (path: string) => `${prefix}-${path}`;
  const at = (path: string) =>
    error?.details.find((d) => d.path === path)?.message ??
    error?.details.find((d) => d.path.startsWith(`${path}.`))?.message;
  return {
    values,
    set,
    id,
    error: at,
    exact: (path) => error?.fieldMessage(path),
    described: (path, hint = true) =>
      [hint ? `${id(path)}-hint` : '', at(path) !== undefined ? `${id(path)}-error` : ''].filter(Boolean).join(' ') ||
      undefined,
  };
};

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>;

/** A labelled text or number input bound to one field of the values. */
export const TextField = ({
  kit,
  field,
  path = field,
  label,
  hint,
  ...input
}: {
  kit: Kit;
  field: { [K in keyof Values]: Values[K] extends string ? K : never }[keyof Values];
  path?: string;
  label: string;
  hint?: string;
} & InputProps) => (
  <Field id={kit.id(path)} label={label} hint={hint} error={kit.error(path)}>
    <input
      id={kit.id(path)}
      value={kit.values[field] as string}
      onChange={(e) => kit.set({ [field]: e.target.value })}
      aria-invalid={kit.error(path) !== undefined}
      aria-describedby={kit.described(path, hint !== undefined)}
      {...input}
    />
  </Field>
);

/** A labelled select bound to one field of the values. */
export const SelectField = <K extends keyof Values>({
  kit,
  field,
  label,
  hint,
  options,
  disabled,
}: {
  kit: Kit;
  field: K;
  label: string;
  hint?: string;
  options: Array<[Values[K] & string, string]>;
  disabled?: boolean;
}) => (
  <Field id={kit.id(field)} label={label} hint={hint} error={kit.error(field)}>
    <select
      id={kit.id(field)}
      value={kit.values[field] as string}
      disabled={disabled}
      onChange={(e) => kit.set({ [field]: e.target.value } as Partial<Values>)}
      aria-invalid={kit.error(field) !== undefined}
      aria-describedby={kit.described(field, hint !== undefined)}
    >
      {options.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </select>
  </Field>
);

/** A checkbox bound to one boolean field, with the server's message under it. */
export const CheckField = ({
  kit,
  field,
  children,
}: {
  kit: Kit;
  field: { [K in keyof Values]: Values[K] extends boolean ? K : never }[keyof Values];
  children: ReactNode;
}) => (
  <div className="field">
    <label className="checkbox">
      <input
        type="checkbox"
        checked={kit.values[field]}
        onChange={(e) => kit.set({ [field]: e.target.checked })}
        aria-describedby={kit.described(field, false)}
      />{' '}
      {children}
    </label>
    {kit.error(field) !== undefined && (
      <small id={`${kit.id(field)}-error`} className="field-error" role="alert">
        {kit.error(field)}
      </small>
    )}
  </div>
);
