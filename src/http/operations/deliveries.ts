import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import { Delivery } from './answers.ts';
import { WRITERS } from './common.ts';
import { json, operation } from './operation.ts';

/** The delivery log by event and by delivery, and sending a failed delivery again. A delivery is
 *  seen by whoever sees the project of the event it notifies of. */

export const EventDeliveriesQuery = t.exact(t.type({ event_id: Uuid }));

export const deliveryOperations = {
  forEvent: operation({
    method: 'get',
    path: '/v1/deliveries',
    tag: 'Notifications',
    auth: 'jwt',
    query: EventDeliveriesQuery,
    summary: "An event's deliveries",
    description:
      "The deliveries of one notified event (a monitor transition's or an alert's id), one per " +
      'channel, in the projects the caller sees.',
    responses: { 200: json('the deliveries', t.array(Delivery)) },
  }),
  get: operation({
    method: 'get',
    path: '/v1/deliveries/:id',
    tag: 'Notifications',
    auth: 'jwt',
    resource: 'delivery',
    summary: 'A delivery',
    responses: { 200: json('the delivery', Delivery) },
  }),
  retry: operation({
    method: 'post',
    path: '/v1/deliveries/:id/retry',
    tag: 'Notifications',
    auth: 'jwt',
    resource: 'delivery',
    roles: WRITERS,
    summary: 'Send a failed delivery again',
    description:
      'A new round of tries for a failed or cancelled delivery (any other is 409): 202 with the ' +
      'delivery pending again; the tries follow in its log.',
    responses: { 202: json('the delivery, pending', Delivery) },
    errors: [409],
  }),
};
