import type { AuditEventInput } from '../domain/audit-event.ts';

/** The calls of `watchlog demo`'s traffic (demo-traffic.ts): what a shopper's or a staff member's
 *  next request is, with its status and latency. Every draw comes from the traffic's one seeded
 *  source, in a fixed order, so a seed still gives the same day. */

/** Draws from one seeded source of randomness. */
export interface Dice {
  readonly random: () => number;
  readonly pick: <T>(items: readonly T[]) => T;
  readonly chance: (p: number) => boolean;
  readonly hex: (n: number) => string;
  /** Log-normal around `median`, with one call in 80 ten times slower still (a cold cache, a GC). */
  readonly latency: (median: number) => number;
  /** `ok`, or one of the error statuses with its probability. */
  readonly statusOf: (ok: number, errors: ReadonlyArray<readonly [number, number]>) => number;
}

export const diceOf = (random: () => number): Dice => {
  const chance = (p: number) => random() < p;
  return {
    random,
    pick: <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!,
    chance,
    hex: (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join(''),
    latency: (median: number) => {
      const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      return Math.max(1, Math.round(median * Math.exp(0.55 * normal) * (chance(1 / 80) ? 6 + random() * 10 : 1)));
    },
    statusOf: (ok, errors) => {
      let r = random();
      for (const [status, p] of errors) {
        if (r < p) return status;
        r -= p;
      }
      return ok;
    },
  };
};

export interface User {
  id: string;
  email: string;
  name: string;
  ip: string;
  agent: string;
  tenant: string;
}

export interface Call {
  service: string;
  method: AuditEventInput['method'];
  path: string;
  status: number;
  latency: number;
  extra?: Partial<AuditEventInput>;
}

/** When checkout-api's payment provider timed out. */
export interface Incident {
  from: number;
  to: number;
}

export const shopCall = (dice: Dice, user: User, at: number, step: number, incident: Incident): Call => {
  const { random, chance, statusOf, latency, hex, pick } = dice;
  const r = random();
  if (step === 0 && chance(0.5)) {
    const status = statusOf(200, [
      [401, 0.03],
      [429, 0.002],
      [500, 0.001],
    ]);
    return {
      service: 'auth',
      method: 'POST',
      path: '/v1/login',
      status,
      latency: latency(status === 200 ? 180 : 140),
      extra: {
        request_body: { email: user.email, password: `${user.id}-pw`, remember_me: chance(0.4) },
        response_body:
          status === 200
            ? { access_token: `eyJ${hex(24)}`, refresh_token: `rt_${hex(20)}`, expires_in: 3600 }
            : { error: 'invalid_credentials' },
        ...(status === 401 ? { error_message: 'wrong e-mail or password' } : {}),
      },
    };
  }
  if (r < 0.42) {
    const id = 1000 + Math.floor(random() * 4000);
    return {
      service: 'catalog',
      method: 'GET',
      path: `/v1/products/${id}`,
      status: statusOf(200, [
        [404, 0.025],
        [500, 0.002],
        [503, 0.001],
      ]),
      latency: latency(35),
      extra: { path_params: { id: String(id) } },
    };
  }
  if (r < 0.6) {
    const q = pick(['shoes', 'rain jacket', 'lamp', 'usb-c cable', 'coffee', 'desk', 'backpack']);
    return {
      service: 'catalog',
      method: 'GET',
      path: '/v1/search',
      status: statusOf(200, [
        [400, 0.01],
        [500, 0.002],
      ]),
      latency: latency(90),
      extra: { query_params: { q, page: '1' } },
    };
  }
  if (r < 0.75)
    return {
      service: 'checkout-api',
      method: 'GET',
      path: '/v1/cart',
      status: statusOf(200, [
        [401, 0.004],
        [500, 0.002],
      ]),
      latency: latency(25),
    };
  if (r < 0.88) {
    const status = statusOf(201, [
      [409, 0.02],
      [422, 0.015],
      [500, 0.003],
    ]);
    return {
      service: 'checkout-api',
      method: 'POST',
      path: '/v1/cart/items',
      status,
      latency: latency(45),
      extra: {
        request_body: { sku: `SKU-${hex(6).toUpperCase()}`, quantity: 1 + Math.floor(random() * 3) },
        ...(status === 409 ? { error_message: 'out of stock' } : {}),
      },
    };
  }
  if (r < 0.9)
    return {
      service: 'checkout-api',
      method: 'DELETE',
      path: '/v1/cart/items/1',
      status: statusOf(204, [[404, 0.05]]),
      latency: latency(30),
      extra: { path_params: { item: '1' } },
    };
  if (r < 0.96) {
    const inIncident = at >= incident.from && at <= incident.to;
    const status = inIncident
      ? statusOf(201, [
          [504, 0.35],
          [502, 0.1],
        ])
      : statusOf(201, [
          [402, 0.03],
          [422, 0.01],
          [502, 0.004],
          [504, 0.004],
        ]);
    return {
      service: 'checkout-api',
      method: 'POST',
      path: '/v1/checkout',
      status,
      latency: latency(status >= 500 ? 9000 : 420),
      extra: {
        request_body: {
          email: user.email,
          payment: {
            card_number: `4242 4242 4242 ${String(1000 + Math.floor(random() * 9000))}`,
            cvv: String(100 + Math.floor(random() * 900)),
            exp: '09/29',
          },
          shipping: { country: pick(['DE', 'FR', 'NL', 'US', 'GB', 'JP']) },
        },
        response_body:
          status === 201
            ? { order_id: `ord_${hex(10)}`, total_cents: 1500 + Math.floor(random() * 20_000) }
            : { error: status === 402 ? 'card_declined' : 'payment_provider_unavailable' },
        ...(status >= 500
          ? { error_message: 'payment provider timed out after 9000 ms' }
          : status === 402
            ? { error_message: 'card declined' }
            : {}),
      },
    };
  }
  if (r < 0.98) {
    return {
      service: 'auth',
      method: 'POST',
      path: '/v1/token/refresh',
      status: statusOf(200, [[401, 0.02]]),
      latency: latency(60),
      extra: { request_body: { refresh_token: `rt_${hex(20)}` }, response_body: { access_token: `eyJ${hex(24)}` } },
    };
  }
  return {
    service: 'auth',
    method: 'GET',
    path: '/v1/me',
    status: statusOf(200, [[401, 0.01]]),
    latency: latency(15),
  };
};

export const backofficeCall = (dice: Dice, now: number): Call => {
  const { random, statusOf, latency, hex, pick } = dice;
  const r = random();
  if (r < 0.45)
    return {
      service: 'billing',
      method: 'GET',
      path: '/v1/invoices',
      status: statusOf(200, [
        [403, 0.01],
        [500, 0.004],
      ]),
      latency: latency(70),
      extra: { query_params: { status: pick(['open', 'paid', 'overdue']) } },
    };
  if (r < 0.6) {
    const id = `inv_${hex(8)}`;
    return {
      service: 'billing',
      method: 'GET',
      path: `/v1/invoices/${id}`,
      status: statusOf(200, [[404, 0.03]]),
      latency: latency(40),
      extra: { path_params: { id } },
    };
  }
  if (r < 0.68) {
    const id = `inv_${hex(8)}`;
    return {
      service: 'billing',
      method: 'POST',
      path: `/v1/invoices/${id}/refund`,
      status: statusOf(201, [
        [409, 0.05],
        [422, 0.03],
        [500, 0.01],
      ]),
      latency: latency(300),
      extra: {
        path_params: { id },
        request_body: {
          reason: pick(['damaged', 'late delivery', 'duplicate charge']),
          api_key: `sk_live_${hex(24)}`,
        },
      },
    };
  }
  if (r < 0.7)
    return {
      service: 'billing',
      method: 'DELETE',
      path: `/v1/invoices/inv_${hex(8)}`,
      status: statusOf(204, [[403, 0.2]]),
      latency: latency(50),
    };
  if (r < 0.9)
    return {
      service: 'reports',
      method: 'GET',
      path: '/v1/reports/daily',
      status: statusOf(200, [
        [500, 0.01],
        [504, 0.01],
      ]),
      latency: latency(1400),
      extra: { query_params: { day: new Date(now).toISOString().slice(0, 10) } },
    };
  return {
    service: 'reports',
    method: 'PUT',
    path: '/v1/reports/schedules/weekly',
    status: statusOf(200, [
      [400, 0.04],
      [403, 0.02],
    ]),
    latency: latency(80),
    extra: { request_body: { cron: '0 6 * * 1', recipients: ['finance@example.com'] } },
  };
};
