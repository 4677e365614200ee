import got, { RequestError } from 'got';
import webpush from 'web-push';
import { isRetryable, retryDelayMs, type Notification } from '../../domain/notification.ts';
import type { DeliveryOutcome } from './webhook.ts';
import { refusalOf, type EgressPolicy } from '../../checks/egress.ts';

export interface VapidKeys { publicKey: string; privateKey: string }

export interface PushSubscription { endpoint: string; keys: { p256dh: string; auth: string } }

export interface WebPushOptions {
  /** `mailto:` or `https:` contact the push services may use. */
  subject: string;
  /** Every attempt connects through it. */
  egress: EgressPolicy;
  maxAttempts?: number;
  retryBaseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Sends the notification, encrypted for the subscription (aes128gcm) and signed with the VAPID
 *  keys by `web-push`, over `got` (so an `http:` push service, such as a local test one, works
 *  too). `gone` is true when the push service says the subscription no longer exists (404, 410):
 *  the channel should be deactivated. Network errors, 429 and 5xx are retried with backoff; an
 *  endpoint the egress policy refuses is not (and does not deactivate the channel). */
export const deliverWebPush = async (
  subscription: PushSubscription, notification: Notification, keys: VapidKeys, options: WebPushOptions,
): Promise<DeliveryOutcome & { gone: boolean }> => {
  const { maxAttempts = 5, retryBaseMs = 500, sleep = (ms) => new Promise((r) => setTimeout(r, ms)) } = options;
  let last: DeliveryOutcome & { gone: boolean } = { ok: false, attempts: 0, gone: false };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    // Encrypted anew on each attempt: every request gets its own salt and VAPID token.
    const request = webpush.generateRequestDetails(subscription, JSON.stringify(notification), {
      vapidDetails: { subject: options.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
      TTL: 3600, contentEncoding: 'aes128gcm',
    });
    try {
      const res = await got.post(request.endpoint, {
        headers: request.headers as Record<string, string>, body: request.body, agent: options.egress.agent,
        throwHttpErrors: false, followRedirect: false, retry: { limit: 0 }, timeout: { request: 10_000 },
      });
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, attempts: attempt, status: res.statusCode, gone: false };
      last = {
        ok: false, attempts: attempt, status: res.statusCode, gone: res.statusCode === 404 || res.statusCode === 410,
        error: `push service answered ${res.statusCode}: ${res.body.slice(0, 200)}`,
      };
      if (last.gone || !isRetryable(res.statusCode)) return last;
    } catch (error) {
      const refused = refusalOf(error);
      if (refused !== null) return { ok: false, attempts: attempt, gone: false, error: refused };
      last = { ok: false, attempts: attempt, gone: false, error: error instanceof RequestError ? `${error.code}: ${error.message}` : String(error) };
    }
    if (attempt < maxAttempts) await sleep(retryDelayMs(attempt, retryBaseMs));
  }
  return last;
};
