import test from 'ava';
import type { LoginLimits } from '../../src/domain/login-throttle.ts';
import type { LoginThrottle } from '../../src/views/login-throttle/port.ts';

/** The login throttle's contract, for every store adapter. `open` returns a throttle over empty
 *  counters. */
export const loginThrottleContract = (
  adapter: string,
  open: (limits: LoginLimits) => Promise<{ throttle: LoginThrottle; cleanup: () => Promise<void> }>,
): void => {
  const limits: LoginLimits = {
    accountFailures: 2,
    accountLockSeconds: 60,
    accountMaxLockSeconds: 100,
    addressFailures: 5,
    addressWindowSeconds: 600,
  };
  const title = (claim: string) => `${adapter} login throttle: ${claim}`;
  const near = (ms: number, seconds: number) => ms > (seconds - 5) * 1000 && ms <= seconds * 1000;

  test(title('account locks double up to the longest; success and reset forget them'), async (t) => {
    const { throttle, cleanup } = await open({ ...limits, addressFailures: 100 });
    try {
      const ann = { email: 'ann@example.com', address: '10.0.0.1' };
      const elsewhere = { email: 'ann@example.com', address: '10.0.0.2' };
      t.is(await throttle.retryAfterMs(ann), 0);
      await throttle.failed(ann);
      t.is(await throttle.retryAfterMs(ann), 0);
      await throttle.failed(ann);
      t.true(near(await throttle.retryAfterMs(ann), 60));
      t.true(near(await throttle.retryAfterMs(elsewhere), 60), 'the account is locked from every address');
      await throttle.failed(ann);
      t.true(near(await throttle.retryAfterMs(ann), 100), 'doubled, capped at the longest lock');
      await throttle.succeeded(ann);
      t.is(await throttle.retryAfterMs(ann), 0);
      await throttle.failed(ann);
      t.is(await throttle.retryAfterMs(ann), 0, 'its failures were forgotten');
      await throttle.failed(ann);
      t.true(near(await throttle.retryAfterMs(ann), 60));
      await throttle.forgetAccount('ann@example.com');
      t.is(await throttle.retryAfterMs(elsewhere), 0);
    } finally {
      await cleanup();
    }
  });

  test(title('an address is refused after its failures across accounts; IPv6 counts per /64'), async (t) => {
    const { throttle, cleanup } = await open(limits);
    try {
      for (let i = 0; i < 4; i++)
        await throttle.failed({ email: `guess-${i}@example.com`, address: '::ffff:192.0.2.7' });
      const fresh = { email: 'fresh@example.com', address: '192.0.2.7' };
      t.is(await throttle.retryAfterMs(fresh), 0);
      await throttle.succeeded(fresh);
      await throttle.failed({ email: 'guess-5@example.com', address: '192.0.2.7' });
      t.true(near(await throttle.retryAfterMs(fresh), 600), 'success did not reset the address');
      t.is(await throttle.retryAfterMs({ email: 'fresh@example.com', address: '192.0.2.8' }), 0);
      for (let i = 0; i < 5; i++)
        await throttle.failed({ email: `v6-${i}@example.com`, address: `2001:db8:0:1::${i + 1}` });
      t.true(near(await throttle.retryAfterMs({ email: 'x@example.com', address: '2001:db8:0:1:ffff::9' }), 600));
      t.is(await throttle.retryAfterMs({ email: 'x@example.com', address: '2001:db8:0:2::1' }), 0);
    } finally {
      await cleanup();
    }
  });
};
