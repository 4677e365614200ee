import type { ChannelTarget } from '../../domain/channel.ts';
import {
  discordPayload,
  messageOf,
  ntfyPayload,
  pagerDutyEvents,
  slackPayload,
  teamsPayload,
} from '../../domain/notification-message.ts';
import type { Notification } from '../../domain/notification.ts';
import type { EgressPolicy } from '../../checks/egress.ts';
import { postJson, type PostOptions, type ProviderAnswer } from './answer.ts';
import { sendEmail } from './email.ts';
import { sendWebhook } from './webhook.ts';
import { sendWebPush, type VapidKeys } from './webpush.ts';

export type { ProviderAnswer } from './answer.ts';

/** What sending needs besides the channel and the notification. */
export interface SendOptions {
  /** Every connection goes through it. */
  egress: EgressPolicy;
  /** WATCHLOG_PUBLIC_URL: messages link to the dashboard under it; null: no link. */
  publicUrl: string | null;
  vapid: VapidKeys;
  vapidSubject: string;
  /** One try's time limit. */
  timeoutMs: number;
}

export type SendAnswer = ProviderAnswer & { gone?: boolean };

/** One try of one notification to one channel, whatever its type (no retry here: the caller
 *  retries, records each try, and decides). */
export const sendOnce = async (target: ChannelTarget, n: Notification, options: SendOptions): Promise<SendAnswer> => {
  const post: PostOptions = { egress: options.egress, timeoutMs: options.timeoutMs };
  const message = messageOf(n, options.publicUrl);
  switch (target.type) {
    case 'webhook':
      return sendWebhook(target, n, message.link, post);
    case 'webpush':
      return sendWebPush(target.subscription, n, options.vapid, options.vapidSubject, post);
    case 'slack':
      return postJson(target.url, slackPayload(message), post);
    case 'discord':
      return postJson(target.url, discordPayload(message), post);
    case 'teams':
      return postJson(target.url, teamsPayload(message), post);
    case 'email':
      return sendEmail(target, n, message, post);
    case 'ntfy':
      return postJson(
        target.url,
        ntfyPayload(message, target.topic),
        post,
        target.token === undefined ? {} : { authorization: `Bearer ${target.token}` },
      );
    case 'pagerduty': {
      // A test is a trigger and its resolve: the answer is the first that failed, else the last.
      let answer: ProviderAnswer | null = null;
      for (const event of pagerDutyEvents(n, message, target.routing_key, target.severity)) {
        answer = await postJson(target.url, event, post);
        if (!answer.ok) return answer;
      }
      return answer!;
    }
  }
};
