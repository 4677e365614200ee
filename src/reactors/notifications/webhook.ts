import { signBody, type Notification } from '../../domain/notification.ts';
import { post, type PostOptions, type ProviderAnswer } from './answer.ts';

export interface WebhookTarget {
  url: string;
  secret?: string | undefined;
}

/** The notification as JSON with its dashboard link, signed when the channel has a secret
 *  (`X-Watchlog-Signature`); `X-Watchlog-Delivery` is the notification's id, the same on every
 *  try, for the receiver to deduplicate. */
export const sendWebhook = (
  target: WebhookTarget,
  notification: Notification,
  link: string | null,
  options: PostOptions,
): Promise<ProviderAnswer> => {
  const body = JSON.stringify({ ...notification, dashboard_url: link });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-watchlog-event': notification.type,
    'x-watchlog-delivery': notification.id,
  };
  if (target.secret) headers['x-watchlog-signature'] = signBody(target.secret, body);
  return post(target.url, body, headers, options);
};
