import { useState } from 'react';
import type { Monitor } from '../../api.ts';
import type { FieldErrors } from '../../components/form-errors.ts';
import { type GroupRow, newGroup } from './page-values.ts';

const move = <T,>(list: readonly T[], from: number, to: number): T[] => {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item!);
  return out;
};

/** One group: its name, its monitors in order (each movable and removable), and a select of the
 *  project's monitors not yet on the page, to add one. */
const Group = ({
  group,
  index,
  count,
  prefix,
  monitors,
  taken,
  errors,
  onChange,
  onMove,
  onRemove,
}: {
  group: GroupRow;
  index: number;
  count: number;
  prefix: string;
  monitors: readonly Monitor[];
  taken: ReadonlySet<string>;
  errors: FieldErrors;
  onChange: (g: GroupRow) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) => {
  const [adding, setAdding] = useState('');
  const id = `${prefix}-group-${group.key}`;
  const label = group.name.trim() === '' ? `group ${index + 1}` : group.name.trim();
  const nameError = errors.under(`groups.${index}.name`) ?? errors.at(`groups.${index}`);
  const listError = errors.at(`groups.${index}.monitor_ids`);
  const nameOf = (monitorId: string) => monitors.find((m) => m.id === monitorId)?.name;
  const free = monitors.filter((m) => !taken.has(m.id));
  const choice = free.some((m) => m.id === adding) ? adding : (free[0]?.id ?? '');
  return (
    <fieldset className="sp-group">
      <legend>Group {index + 1}</legend>
      <div className={`field${nameError !== undefined ? ' invalid' : ''}`}>
        <label htmlFor={`${id}-name`}>Group name</label>
        <input
          id={`${id}-name`}
          value={group.name}
          maxLength={100}
          onChange={(e) => onChange({ ...group, name: e.target.value })}
          aria-invalid={nameError !== undefined}
          aria-describedby={nameError !== undefined ? `${id}-name-error` : undefined}
        />
        {nameError !== undefined && (
          <small id={`${id}-name-error`} className="field-error" role="alert">
            {nameError}
          </small>
        )}
      </div>
      {group.monitorIds.length === 0 ? (
        <p className="muted">No monitor in this group yet.</p>
      ) : (
        <ol className="sp-members" aria-label={`Monitors of ${label}`}>
          {group.monitorIds.map((monitorId, i) => {
            const name = nameOf(monitorId) ?? 'a monitor no longer in this project';
            const error = errors.at(`groups.${index}.monitor_ids.${i}`);
            return (
              <li key={monitorId}>
                <span className={nameOf(monitorId) === undefined ? 'muted' : undefined}>{name}</span>
                <span className="sp-row-actions">
                  <button
                    type="button"
                    disabled={i === 0}
                    aria-label={`Move ${name} up`}
                    onClick={() => onChange({ ...group, monitorIds: move(group.monitorIds, i, i - 1) })}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    disabled={i === group.monitorIds.length - 1}
                    aria-label={`Move ${name} down`}
                    onClick={() => onChange({ ...group, monitorIds: move(group.monitorIds, i, i + 1) })}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    aria-label={`Remove ${name} from ${label}`}
                    onClick={() => onChange({ ...group, monitorIds: group.monitorIds.filter((x) => x !== monitorId) })}
                  >
                    Remove
                  </button>
                </span>
                {error !== undefined && (
                  <small className="field-error" role="alert">
                    {error}
                  </small>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {listError !== undefined && (
        <small className="field-error" role="alert">
          {listError}
        </small>
      )}
      <div className="row sp-group-add">
        <div className="field">
          <label htmlFor={`${id}-add`}>Add a monitor to {label}</label>
          <select
            id={`${id}-add`}
            value={choice}
            disabled={free.length === 0}
            onChange={(e) => setAdding(e.target.value)}
          >
            {free.length === 0 && <option value="">Every monitor is on the page</option>}
            {free.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        <button
          type="button"
          disabled={choice === ''}
          onClick={() => onChange({ ...group, monitorIds: [...group.monitorIds, choice] })}
        >
          Add
        </button>
      </div>
      <div className="row sp-group-actions">
        <button type="button" disabled={index === 0} onClick={() => onMove(index - 1)} aria-label={`Move ${label} up`}>
          Move group up
        </button>
        <button
          type="button"
          disabled={index === count - 1}
          onClick={() => onMove(index + 1)}
          aria-label={`Move ${label} down`}
        >
          Move group down
        </button>
        <button type="button" className="danger" onClick={onRemove} aria-label={`Remove ${label}`}>
          Remove group
        </button>
      </div>
    </fieldset>
  );
};

/** The page's groups, in order: add, rename, reorder and remove them, and choose each one's
 *  monitors. A monitor is on a page once: the monitors already in a group are not offered again. */
export const GroupsEditor = ({
  prefix,
  groups,
  monitors,
  errors,
  onChange,
}: {
  prefix: string;
  groups: GroupRow[];
  monitors: readonly Monitor[];
  errors: FieldErrors;
  onChange: (groups: GroupRow[]) => void;
}) => {
  const taken = new Set(groups.flatMap((g) => g.monitorIds));
  const listError = errors.at('groups');
  return (
    <section className="sp-groups" aria-labelledby={`${prefix}-groups`}>
      <h3 id={`${prefix}-groups`}>Groups</h3>
      <p className="muted">
        The page lists its monitors under these headings, in this order, by their names (never their URLs or errors).
      </p>
      {groups.map((g, i) => (
        <Group
          key={g.key}
          group={g}
          index={i}
          count={groups.length}
          prefix={prefix}
          monitors={monitors}
          taken={taken}
          errors={errors}
          onChange={(changed) => onChange(groups.map((x) => (x.key === g.key ? changed : x)))}
          onMove={(to) => onChange(move(groups, i, to))}
          onRemove={() => onChange(groups.filter((x) => x.key !== g.key))}
        />
      ))}
      {listError !== undefined && (
        <small className="field-error" role="alert">
          {listError}
        </small>
      )}
      <button type="button" onClick={() => onChange([...groups, newGroup()])}>
        Add group
      </button>
    </section>
  );
};
