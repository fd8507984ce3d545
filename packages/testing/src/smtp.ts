import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback that keeps every message it receives, parsed. */
export interface SmtpCapture {
  url: string;
  messages: ParsedMail[];
  /** Resolves once at least `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  /** While true, every recipient is refused with 451 (a temporary failure: the sender retries). */
  refuse(refusing: boolean): void;
  /** Recipients refused so far. */
  refused(): number;
  close(): Promise<void>;
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: ParsedMail[] = [];
  const arrivals = new EventEmitter();
  let refusing = false;
  let refusedCount = 0;
  const server = new SMTPServer({
    onRcptTo(_address, _session, callback) {
      if (!refusing) return callback();
      refusedCount += 1;
      return callback(Object.assign(new Error('Mailbox temporarily unavailable, try again later'), { responseCode: 451 }));
    },
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          arrivals.emit('message');
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  // A sender killed mid-session (the fault tests SIGKILL the notifier) resets its connection;
  // smtp-server reports that as an 'error' event, which would otherwise crash the test process.
  server.on('error', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(count, timeoutMs = 10_000) {
      if (messages.length >= count) return Promise.resolve(messages);
      return new Promise((resolve, reject) => {
        const arrived = (): void => {
          if (messages.length < count) return;
          clearTimeout(timer);
          arrivals.off('message', arrived);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          arrivals.off('message', arrived);
          reject(new Error(`expected ${count} e-mails, got ${messages.length}`));
        }, timeoutMs);
        arrivals.on('message', arrived);
      });
    },
    refuse(value) {
      refusing = value;
    },
    refused: () => refusedCount,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
