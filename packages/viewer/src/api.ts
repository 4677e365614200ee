/** The few calls the viewer makes, with the token as a bearer credential. */

/** A list item of `GET /v1/audit` (SPEC 2.2). */
export interface ListItem {
  id: string;
  event_type: string;
  method: string;
  path: string;
  status_code: number | null;
  response_time: number | null;
  identifier: string;
  user_email: string | null;
  service_name: string;
  environment: string;
  timestamp: string;
}

export interface ListAnswer {
  data: ListItem[];
  pagination: { page: number; limit: number; totalItems: number; totalPage: number };
}

/** The full event of `GET /v1/audit/:id`; a token may hide some of its fields. */
export type FullEvent = Record<string, unknown> & { id: string };

/** A refused or failed call: `status` 0 when the service could not be reached. */
export class ViewerError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ViewerError';
  }
}

/** The message of watchlog's error body (`{ error: { message } }`), else the status line. */
const failure = async (response: Response): Promise<ViewerError> => {
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // Not JSON (a proxy's page): the status line says enough.
  }
  return new ViewerError(response.status, message);
};

export interface ViewerApi {
  list(params: URLSearchParams, signal?: AbortSignal): Promise<ListAnswer>;
  detail(id: string, signal?: AbortSignal): Promise<FullEvent>;
  exportCsv(params: URLSearchParams, signal?: AbortSignal): Promise<Blob>;
}

export const viewerApi = (base: string, token: string, fetcher: typeof fetch = fetch): ViewerApi => {
  const root = base.replace(/\/+$/, '');
  const call = async (path: string, accept: string, signal?: AbortSignal): Promise<Response> => {
    let response: Response;
    try {
      response = await fetcher(`${root}${path}`, {
        headers: { authorization: `Bearer ${token}`, accept },
        credentials: 'omit',
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ViewerError(0, 'the audit log service could not be reached');
    }
    if (!response.ok) throw await failure(response);
    return response;
  };
  return {
    list: async (params, signal) =>
      (await (await call(`/v1/audit?${params}`, 'application/json', signal)).json()) as ListAnswer,
    detail: async (id, signal) =>
      (await (await call(`/v1/audit/${encodeURIComponent(id)}`, 'application/json', signal)).json()) as FullEvent,
    exportCsv: async (params, signal) => (await call(`/v1/audit/export?${params}`, 'text/csv', signal)).blob(),
  };
};
