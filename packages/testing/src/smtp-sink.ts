import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

/**
 * An SMTP server that writes every message it receives as a `.eml` file into `dir`: the local
 * cluster's mail catcher (`pnpm cluster up`), where a developer reads the alerts the notifiers send.
 */
export async function startSmtpSink(port: number, dir: string): Promise<{ close(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        count += 1;
        writeFileSync(path.join(dir, `${Date.now()}-${count}.eml`), Buffer.concat(chunks));
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  server.listen(port, '127.0.0.1');
  await once(server.server, 'listening');
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
