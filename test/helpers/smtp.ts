import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { certificateFor, type Pem } from './probe-servers.ts';

export interface SmtpOptions {
  /** Offer STARTTLS (or, with `secure`, TLS from the first byte) with this certificate. */
  tls?: { key: string; cert: string };
  secure?: boolean;
  /** Ask for AUTH PLAIN/LOGIN with these. */
  login?: { user: string; pass: string };
  /** Answer each message with this reply code instead of 250 (e.g. 451, 550). */
  replyCode?: (n: number) => number;
}

/** A self-signed certificate for localhost and 127.0.0.1, made for the test (valid 30 days). */
export const selfSignedCert = (): Promise<Pem> => certificateFor(30);

/** A real SMTP server (the `smtp-server` package) on 127.0.0.1 that keeps each message, parsed,
 *  and whether its session was encrypted. */
export const smtpServer = async (options: SmtpOptions = {}) => {
  const messages: Array<{
    mail: ParsedMail;
    secure: boolean;
    user: string | null;
    envelope: { from: string; to: string[] };
  }> = [];
  let sessions = 0;
  let received = 0;
  const server = new SMTPServer({
    secure: options.secure ?? false,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    ...(options.login ? { authMethods: ['PLAIN', 'LOGIN'] } : { authOptional: true }),
    ...(options.login && !options.tls ? { allowInsecureAuth: true } : {}),
    logger: false,
    onConnect(_session, callback) {
      sessions += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (options.login && auth.username === options.login.user && auth.password === options.login.pass)
        callback(null, { user: auth.username });
      else callback(new Error('invalid login'));
    },
    onData(stream, session, callback) {
      const n = received;
      received += 1;
      simpleParser(stream).then(
        (mail) => {
          const code = options.replyCode?.(n) ?? 250;
          if (code !== 250) {
            callback(
              Object.assign(new Error(code >= 500 ? 'mailbox unavailable' : 'try again later'), { responseCode: code }),
            );
            return;
          }
          messages.push({
            mail,
            secure: session.secure,
            user: typeof session.user === 'string' ? session.user : null,
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            },
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    sessions: () => sessions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
