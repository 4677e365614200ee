import net from 'node:net';
import nodemailer from 'nodemailer';
import type { TargetOf } from '../../domain/channel.ts';
import { emailContent, type Message } from '../../domain/notification-message.ts';
import type { Notification } from '../../domain/notification.ts';
import { clipped, errorAnswer, type PostOptions, type ProviderAnswer } from './answer.ts';

/** Errors that no other try will change: the server refused the login, a certificate is not
 *  trusted, or the server has no STARTTLS when it is required. */
const FINAL_CODES = new Set(['EAUTH', 'ETLS', 'EENVELOPE', 'EMESSAGE']);

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message: string;
}

/** How to reach an SMTP server: a channel's `smtp`, or the deployment's (WATCHLOG_SMTP_*). */
export type SmtpSettings = TargetOf<'email'>['smtp'];

/** One message as it is handed to the server. `to` are bare addresses, given to nodemailer as
 *  such (never parsed from a header's text). */
export interface MailMessage {
  from: string;
  to: readonly string[];
  subject: string;
  text: string;
  html: string;
  headers: Readonly<Record<string, string>>;
}

/** One message over SMTP (nodemailer), plain text and HTML. The server's address comes from the
 *  egress policy, which judges it as it judges every connection, and nodemailer connects to that
 *  address with the host name kept for TLS (SNI and the certificate check). A 4xx reply or a
 *  connection that fails may pass on a later try; a 5xx reply will not. */
export const sendMail = async (
  smtp: SmtpSettings,
  mail: MailMessage,
  options: PostOptions,
): Promise<ProviderAnswer> => {
  const { host, port, security, username, password, reject_unauthorized, ca } = smtp;
  let address: string;
  try {
    address = await options.egress.destination(host);
  } catch (error) {
    return errorAnswer(error);
  }
  const transport = nodemailer.createTransport({
    host: address,
    port,
    secure: security === 'tls',
    requireTLS: security === 'starttls',
    ignoreTLS: security === 'none',
    ...(username === undefined ? {} : { auth: { user: username, pass: password ?? '' } }),
    tls: {
      rejectUnauthorized: reject_unauthorized,
      ...(ca === undefined ? {} : { ca }),
      ...(net.isIP(host) === 0 ? { servername: host } : {}),
    },
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: mail.from,
      to: mail.to.map((a) => ({ name: '', address: a })),
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      headers: { ...mail.headers },
    });
    const reply = String(info.response);
    return {
      ok: true,
      retryable: false,
      status: Number.parseInt(reply, 10) || null,
      error: null,
      response: clipped(reply),
    };
  } catch (error) {
    const e = error as SmtpError;
    if (e.responseCode === undefined) {
      const answer = errorAnswer(error);
      return e.code !== undefined && FINAL_CODES.has(e.code) ? { ...answer, retryable: false } : answer;
    }
    return {
      ok: false,
      retryable: e.responseCode < 500,
      status: e.responseCode,
      error: e.message,
      response: clipped(e.response ?? ''),
    };
  } finally {
    transport.close();
  }
};

/** A channel's notification as e-mail, to the channel's recipients. */
export const sendEmail = (
  target: TargetOf<'email'>,
  notification: Notification,
  message: Message,
  options: PostOptions,
): Promise<ProviderAnswer> =>
  sendMail(
    target.smtp,
    {
      from: target.from,
      to: target.to,
      ...emailContent(message),
      headers: { 'X-Watchlog-Event': notification.type, 'X-Watchlog-Delivery': notification.id },
    },
    options,
  );
