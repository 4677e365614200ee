import * as t from 'io-ts';
import { boundedArray, boundedString, closed, intRange, ManagedBy, matching, Uuid } from './codecs.ts';
import type { Decider } from './decider.ts';
import { DomainError, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';

/** Public status pages (docs/status-pages.md): what the API accepts, what the log keeps, and the
 *  page's decider. A slug and a custom domain are each held by one page at a time: a claim is
 *  an event in a stream of its own (`slugClaimDecider`), appended at the revision it read, so two
 *  pages racing for one slug cannot both win, on either log. */

export const SLUG_RE = /^[a-z0-9-]{3,63}$/;
export const Slug = matching('3 to 63 lower-case letters, digits or -', SLUG_RE);

/** A host name as a browser sends it in `Host`, lower-case, without a port. */
export const CUSTOM_DOMAIN_RE =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
export const CustomDomain = matching('a lower-case host name with at least one dot', CUSTOM_DOMAIN_RE);

export const MAX_GROUPS = 20;
export const MAX_MONITORS_PER_GROUP = 100;
export const MAX_UPTIME_DAYS = 90;
export const DEFAULT_UPTIME_DAYS = 90;

export const StatusPageGroup = closed(
  t.exact(
    t.type({
      name: boundedString(1, 100),
      monitor_ids: boundedArray(Uuid, 0, MAX_MONITORS_PER_GROUP, `a list of at most ${MAX_MONITORS_PER_GROUP} ids`),
    }),
  ),
  'field',
  'a group',
);
export type StatusPageGroup = t.TypeOf<typeof StatusPageGroup>;

export const statusPageFields = {
  title: boundedString(1, 200),
  description: t.union([t.null, boundedString(0, 2000)]),
  groups: boundedArray(StatusPageGroup, 0, MAX_GROUPS, `a list of at most ${MAX_GROUPS} groups`),
  published: t.boolean,
  show_uptime_days: intRange(1, MAX_UPTIME_DAYS),
  custom_domain: t.union([t.null, CustomDomain]),
  /** Open an incident when a monitor of the page is confirmed DOWN, resolve it when it is UP. */
  auto_incidents: t.boolean,
};

export const StatusPageCreateInput = closed(
  t.exact(
    t.intersection([
      t.type({ project_id: Uuid, slug: Slug, title: statusPageFields.title }),
      t.partial({
        description: statusPageFields.description,
        groups: statusPageFields.groups,
        published: statusPageFields.published,
        show_uptime_days: statusPageFields.show_uptime_days,
        custom_domain: statusPageFields.custom_domain,
        auto_incidents: statusPageFields.auto_incidents,
        managed_by: ManagedBy,
      }),
    ]),
  ),
  'field',
  'a status page',
);
export type StatusPageCreateInput = t.TypeOf<typeof StatusPageCreateInput>;

export const StatusPageUpdateInput = closed(
  t.exact(t.partial({ slug: Slug, ...statusPageFields, managed_by: ManagedBy })),
  'field',
  'changes to a status page',
);
export type StatusPageUpdateInput = t.TypeOf<typeof StatusPageUpdateInput>;

const storedSettings = {
  slug: t.string,
  title: t.string,
  description: t.union([t.null, t.string]),
  groups: t.array(t.type({ name: t.string, monitor_ids: t.array(t.string) })),
  published: t.boolean,
  show_uptime_days: t.number,
  custom_domain: t.union([t.null, t.string]),
  auto_incidents: t.boolean,
};
/** A page's settings as the log keeps them (`managed_by` absent on a page made by hand). */
export const StatusPageSettings = t.intersection([t.type(storedSettings), t.partial({ managed_by: t.string })]);
export type StatusPageSettings = t.TypeOf<typeof StatusPageSettings>;

export const StatusPageChanges = t.partial({ ...storedSettings, managed_by: t.string });
export type StatusPageChanges = t.TypeOf<typeof StatusPageChanges>;

const ids = { page_id: t.string, project_id: t.string };

export const statusPageEvents = {
  StatusPageCreated: t.intersection([t.type({ ...ids, created_at: t.string }), StatusPageSettings]),
  StatusPageUpdated: t.type({ ...ids, changes: StatusPageChanges, updated_at: t.string }),
  StatusPageDeleted: t.type({ ...ids, deleted_at: t.string }),
  /** A slug or custom domain (`name`) is held by a page, or let go. */
  PageNameClaimed: t.type({ ...ids, name: t.string, claimed_at: t.string }),
  PageNameReleased: t.type({ ...ids, name: t.string, released_at: t.string }),
} as const;

export const defaultsOf = (input: StatusPageCreateInput): StatusPageSettings => ({
  slug: input.slug,
  title: input.title,
  description: input.description ?? null,
  groups: input.groups ?? [],
  published: input.published ?? false,
  show_uptime_days: input.show_uptime_days ?? DEFAULT_UPTIME_DAYS,
  custom_domain: input.custom_domain ?? null,
  auto_incidents: input.auto_incidents ?? false,
  ...(input.managed_by === undefined ? {} : { managed_by: input.managed_by }),
});

/** Every monitor id the page shows, once each. */
export const monitorIdsOf = (groups: StatusPageSettings['groups']): string[] => [
  ...new Set(groups.flatMap((g) => g.monitor_ids)),
];

export interface StatusPageState {
  id: string | null;
  projectId: string;
  deleted: boolean;
  settings: StatusPageSettings | null;
}

export const initialStatusPage: StatusPageState = { id: null, projectId: '', deleted: false, settings: null };

export const evolveStatusPage = (state: StatusPageState, e: DomainEvent): StatusPageState => {
  switch (e.type) {
    case 'StatusPageCreated': {
      const { page_id, project_id, created_at: _, ...settings } = e.data;
      return { id: page_id, projectId: project_id, deleted: false, settings };
    }
    case 'StatusPageUpdated':
      return state.settings === null ? state : { ...state, settings: { ...state.settings, ...e.data.changes } };
    case 'StatusPageDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

export const assertStatusPageExists = (state: StatusPageState): StatusPageSettings => {
  if (state.id === null || state.deleted || state.settings === null) throw notFound('status page');
  return state.settings;
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of `changes` that differ from `settings`. */
export const changedFields = (settings: StatusPageSettings, changes: StatusPageUpdateInput): StatusPageChanges => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined && !same(value, settings[key as keyof StatusPageSettings])) out[key] = value;
  }
  return out as StatusPageChanges;
};

export type StatusPageCommand =
  | { type: 'CreateStatusPage'; page_id: string; project_id: string; settings: StatusPageSettings; at: string }
  | { type: 'UpdateStatusPage'; changes: StatusPageChanges; at: string }
  | { type: 'DeleteStatusPage'; at: string };

export const statusPageDecider: Decider<StatusPageState, StatusPageCommand> = {
  initialState: initialStatusPage,
  evolve: evolveStatusPage,
  decide(command, state) {
    switch (command.type) {
      case 'CreateStatusPage':
        if (state.id !== null) throw new DomainError('conflict', 'status page already exists');
        return [
          {
            type: 'StatusPageCreated',
            data: {
              page_id: command.page_id,
              project_id: command.project_id,
              ...command.settings,
              created_at: command.at,
            },
          },
        ];
      case 'UpdateStatusPage': {
        assertStatusPageExists(state);
        if (Object.keys(command.changes).length === 0) return [];
        return [
          {
            type: 'StatusPageUpdated',
            data: { page_id: state.id!, project_id: state.projectId, changes: command.changes, updated_at: command.at },
          },
        ];
      }
      case 'DeleteStatusPage':
        assertStatusPageExists(state);
        return [
          {
            type: 'StatusPageDeleted',
            data: { page_id: state.id!, project_id: state.projectId, deleted_at: command.at },
          },
        ];
    }
  },
};

/** Who holds a slug or a custom domain. */
export interface PageNameState {
  holder: string | null;
}

export type PageNameCommand =
  | {
      type: 'ClaimPageName';
      name: string;
      page_id: string;
      project_id: string;
      what: 'slug' | 'custom_domain';
      at: string;
    }
  | { type: 'ReleasePageName'; name: string; page_id: string; project_id: string; at: string };

export const pageNameDecider: Decider<PageNameState, PageNameCommand> = {
  initialState: { holder: null },
  evolve(state, e) {
    if (e.type === 'PageNameClaimed') return { holder: e.data.page_id };
    if (e.type === 'PageNameReleased') return state.holder === e.data.page_id ? { holder: null } : state;
    return state;
  },
  decide(command, state) {
    switch (command.type) {
      case 'ClaimPageName':
        if (state.holder === command.page_id) return [];
        if (state.holder !== null)
          throw new DomainError('conflict', `${command.what} ${command.name} is taken by another status page`, [
            { path: command.what, message: 'is taken by another status page' },
          ]);
        return [
          {
            type: 'PageNameClaimed',
            data: {
              name: command.name,
              page_id: command.page_id,
              project_id: command.project_id,
              claimed_at: command.at,
            },
          },
        ];
      case 'ReleasePageName':
        if (state.holder !== command.page_id) return [];
        return [
          {
            type: 'PageNameReleased',
            data: {
              name: command.name,
              page_id: command.page_id,
              project_id: command.project_id,
              released_at: command.at,
            },
          },
        ];
    }
  },
};
