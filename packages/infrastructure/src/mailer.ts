import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';

/** One e-mail with a text and an HTML part. */
export interface OutgoingMail {
  /** `<…@…>`, the same on every retry of the same alert. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

/** Mail port: SMTP in the services, `.eml` files in the embedded quickstart. */
export interface Mailer {
  /** Resolves once the message is accepted (SMTP 250, or the file written). */
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

function messageOptions(mail: OutgoingMail): SendMailOptions {
  return {
    messageId: mail.messageId,
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    // RFC 3834: automatic mail, so that auto-responders stay quiet.
    headers: { 'Auto-Submitted': 'auto-generated', ...mail.headers },
  };
}

// nodemailer's defaults wait minutes for a dead server.
const SMTP_TIMEOUTS = { connectionTimeout: '10000', greetingTimeout: '10000', socketTimeout: '30000' };

/** SMTP through nodemailer, from a `smtp://` or `smtps://` URL (credentials and options in the URL). */
export function createSmtpMailer(url: string): Mailer {
  // nodemailer reads transport options from the URL's query and ignores the others given with a URL.
  const withTimeouts = new URL(url);
  for (const [name, value] of Object.entries(SMTP_TIMEOUTS)) {
    if (!withTimeouts.searchParams.has(name)) withTimeouts.searchParams.set(name, value);
  }
  const transport = nodemailer.createTransport(withTimeouts.toString());
  return {
    async send(mail) {
      await transport.sendMail(messageOptions(mail));
    },
    close() {
      transport.close();
      return Promise.resolve();
    },
  };
}

/**
 * Writes each e-mail as an `.eml` file into `dir` (embedded quickstart). The file is named
 * after the Message-ID, so sending the same alert twice leaves one file.
 */
export function createFileMailer(dir: string): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail(messageOptions(mail));
      const name = `${mail.messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9._@-]/g, '_')}.eml`;
      await mkdir(dir, { recursive: true });
      const target = path.join(dir, name);
      const partial = `${target}.partial`;
      await writeFile(partial, info.message as Buffer);
      await rename(partial, target);
    },
    close: () => Promise.resolve(),
  };
}
