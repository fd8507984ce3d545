/**
 * links.test.ts's probe, run inside a network namespace of the test's own: a server that sends a
 * tick every 50 ms to a connected client, then the nemesis's partition of the server's port, then
 * the heal. Prints what the client saw in each phase as JSON.
 */
import net from 'node:net';
import { once } from 'node:events';
import { cut, healLinks, prepareLinks, rules } from './links';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** 'connected', 'refused' (an RST) or 'silent' (no answer within `ms`). */
async function tryConnect(port: number, ms: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  const outcome = await Promise.race([
    once(socket, 'connect').then(() => 'connected'),
    once(socket, 'error').then(([error]) => ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? 'refused' : 'error')),
    pause(ms).then(() => 'silent'),
  ]);
  socket.destroy();
  return outcome;
}

async function main(): Promise<void> {
  await prepareLinks();
  const server = net.createServer((client) => {
    const timer = setInterval(() => client.write('tick\n'), 50);
    client.on('error', () => undefined).on('close', () => clearInterval(timer));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  let received = 0;
  client.on('data', (chunk: Buffer) => {
    received += chunk.length;
  });
  await once(client, 'connect');
  const seen = async (ms: number): Promise<number> => {
    const before = received;
    await pause(ms);
    return received - before;
  };
  const before = await seen(500);
  await cut([port]);
  const ruleCount = (await rules()).length;
  const during = await seen(1000);
  const connectDuring = await tryConnect(port, 1000);
  await healLinks();
  const after = await seen(3000);
  const connectAfter = await tryConnect(port, 1000);
  console.log(JSON.stringify({ before, ruleCount, during, connectDuring, after, connectAfter, rulesAfter: (await rules()).length }));
  client.destroy();
  server.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
