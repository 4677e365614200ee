import webpush from 'web-push';
import type { Notification } from '../../domain/notification.ts';
import { post, type PostOptions, type ProviderAnswer } from './answer.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface PushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** Sends the notification, encrypted for the subscription (aes128gcm) and signed with the VAPID
 *  keys by `web-push`, over `got` (so an `http:` push service, such as a local test one, works
 *  too); encrypted anew on each try (every request gets its own salt and VAPID token). `gone`:
 *  the push service says the subscription no longer exists (404, 410), so the channel should be
 *  deactivated. */
export const sendWebPush = async (
  subscription: PushSubscription,
  notification: Notification,
  keys: VapidKeys,
  subject: string,
  options: PostOptions,
): Promise<ProviderAnswer & { gone: boolean }> => {
  const request = webpush.generateRequestDetails(subscription, JSON.stringify(notification), {
    vapidDetails: { subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
    TTL: 3600,
    contentEncoding: 'aes128gcm',
  });
  const answer = await post(request.endpoint, request.body, request.headers as Record<string, string>, options);
  const gone = answer.status === 404 || answer.status === 410;
  return { ...answer, gone, ...(gone ? { retryable: false } : {}) };
};
