import got, { RequestError } from 'got';
import { isRetryable, retryDelayMs, signBody, type Notification } from '../../domain/notification.ts';
import { refusalOf, type EgressPolicy } from '../../checks/egress.ts';

export interface WebhookTarget { url: string; secret?: string | undefined }

export interface DeliveryOutcome {
  ok: boolean;
  attempts: number;
  /** The last answer's status; absent when no answer came. */
  status?: number;
  error?: string;
}

export interface WebhookOptions {
  /** Every attempt connects through it. */
  egress: EgressPolicy;
  maxAttempts?: number;
  timeoutMs?: number;
  retryBaseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** POSTs the notification as JSON, signed when the channel has a secret; retries network errors,
 *  429 and 5xx with exponential backoff, gives up at once on other answers, and on an address the
 *  egress policy refuses (no retry can change that). */
export const deliverWebhook = async (target: WebhookTarget, notification: Notification, options: WebhookOptions): Promise<DeliveryOutcome> => {
  const { egress, maxAttempts = 5, timeoutMs = 10_000, retryBaseMs = 500, sleep = (ms) => new Promise((r) => setTimeout(r, ms)) } = options;
  const body = JSON.stringify(notification);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'watchlog-webhook/0.1',
    'x-watchlog-event': notification.type,
    'x-watchlog-delivery': notification.id,
  };
  if (target.secret) headers['x-watchlog-signature'] = signBody(target.secret, body);
  let last: DeliveryOutcome = { ok: false, attempts: 0 };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      const res = await got.post(target.url, {
        body, headers, agent: egress.agent, throwHttpErrors: false, followRedirect: false, retry: { limit: 0 }, timeout: { request: timeoutMs },
      });
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, attempts: attempt, status: res.statusCode };
      last = { ok: false, attempts: attempt, status: res.statusCode, error: `answered ${res.statusCode}` };
      if (!isRetryable(res.statusCode)) return last;
    } catch (error) {
      const refused = refusalOf(error);
      if (refused !== null) return { ok: false, attempts: attempt, error: refused };
      last = { ok: false, attempts: attempt, error: error instanceof RequestError ? `${error.code}: ${error.message}` : String(error) };
    }
    if (attempt < maxAttempts) await sleep(retryDelayMs(attempt, retryBaseMs));
  }
  return last;
};
