import { shell } from './html.ts';
import { linksOf } from './status-model.ts';
import { escapeMarkup as e } from './text.ts';

/** The small pages of a status page's e-mail subscriptions (docs/status-pages.md#subscribers), in
 *  the page's frame and under its CSP. A link of a message only shows a page with a button: mail
 *  scanners open links, and only the button's POST changes anything. None of them shows the
 *  address. */

/** What a subscription page shows of its status page. */
export interface SubscriptionPage {
  slug: string;
  title: string;
}

/** A subscription as the pages tell it. */
export type SubscriptionState = 'pending' | 'confirmed' | 'unsubscribed';

const frame = (page: SubscriptionPage, baseUrl: string | null, heading: string, body: string): string => {
  const links = linksOf(page.slug, baseUrl);
  return shell({
    page: { title: page.title, description: null, links },
    title: `${page.title}: ${heading}`,
    live: false,
    main: `<h1>${e(heading)}</h1>${body}<p class="more"><a href="${e(links.page)}">Back to ${e(page.title)}</a></p>`,
    version: null,
  });
};

/** A form that posts to the link's own address (its query names the subscription and its token). */
const button = (action: string, label: string): string =>
  `<form class="action" method="post" action="${e(action)}"><button type="submit">${e(label)}</button></form>`;

/** After the form (or the JSON request) was taken: the same words whatever the address. */
export const renderCheckInbox = (page: SubscriptionPage, baseUrl: string | null): string =>
  frame(
    page,
    baseUrl,
    'Check your inbox',
    '<p>If that address can receive mail, a message is on its way with a link to confirm the subscription. ' +
      'Nothing is sent to it until then.</p>',
  );

/** GET of a confirmation link, and the answer to its POST. */
export const renderConfirm = (
  page: SubscriptionPage,
  baseUrl: string | null,
  state: SubscriptionState,
  action: string,
  done = false,
): string => {
  if (state === 'confirmed')
    return frame(
      page,
      baseUrl,
      done ? 'Subscription confirmed' : 'Already confirmed',
      `<p>You will receive e-mail about new incidents, their updates and maintenance of ${e(page.title)}. ` +
        'Every message has a link to unsubscribe.</p>',
    );
  if (state === 'unsubscribed')
    return frame(
      page,
      baseUrl,
      'Subscription cancelled',
      '<p>This subscription was cancelled. To receive updates again, subscribe again on the status page.</p>' +
        `<p><a href="${e(linksOf(page.slug, baseUrl).page)}#subscribe-h">Subscribe again</a></p>`,
    );
  return frame(
    page,
    baseUrl,
    'Confirm your subscription',
    `<p>Confirm to receive e-mail about new incidents, their updates and maintenance of ${e(page.title)}.</p>` +
      button(action, 'Confirm subscription'),
  );
};

/** GET of an unsubscribe link, and the answer to its POST. */
export const renderUnsubscribe = (
  page: SubscriptionPage,
  baseUrl: string | null,
  state: SubscriptionState,
  action: string,
): string =>
  state === 'unsubscribed'
    ? frame(
        page,
        baseUrl,
        'You are unsubscribed',
        `<p>You will receive no more e-mail about ${e(page.title)}. Subscribing again on the status page ` +
          'starts over with a confirmation.</p>',
      )
    : frame(
        page,
        baseUrl,
        'Unsubscribe',
        `<p>Stop receiving e-mail about ${e(page.title)}?</p>${button(action, 'Unsubscribe')}`,
      );
