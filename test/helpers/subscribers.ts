import { comparePositions } from '../../src/log/event-log.ts';
import { eventually, type TestServer } from './server.ts';

/** The subscribers' mail through a plain SMTP receiver on 127.0.0.1 at `port`. */
export const subscriberMailEnv = (port: number, publicUrl: string, from: string): Record<string, string> => ({
  WATCHLOG_SMTP_HOST: '127.0.0.1',
  WATCHLOG_SMTP_PORT: String(port),
  WATCHLOG_SMTP_SECURITY: 'none',
  WATCHLOG_SMTP_FROM: from,
  WATCHLOG_PUBLIC_URL: publicUrl,
});

/** The status page reactor has applied the log up to its head and has nothing left to send. */
export const mailSettled = async (server: TestServer): Promise<void> => {
  const states = server.runtime.reactorStates;
  await eventually(async () => {
    const head = await server.runtime.log.headPosition();
    if (comparePositions(await states.stores.pageEffects.checkpoint(), head) < 0) return undefined;
    return (await states.pageEffects.pending()).length === 0 ? true : undefined;
  }, 15_000);
};
