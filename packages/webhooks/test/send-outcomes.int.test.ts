/**
 * Issue 45 L4: a failed delivery answers a coarse outcome (address not allowed, timeout, tls
 * failed, connection failed), never an errno or a TLS code: a test send is no port scanner.
 */
import net from 'node:net';
import { startWebhookReceiver, type WebhookReceiver } from '@platform/testing';
import { sendWebhook, type SendOptions } from '../src';

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const request = (url: string) => ({ url, secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=', id: 'msg_1', timestamp: new Date(), body: '{}' });

/** A port on loopback that nothing listens on (a server bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('webhook delivery outcomes', () => {
  it('when the receiver’s certificate is not trusted, then the outcome is "tls failed", no TLS code', async () => {
    const options: SendOptions = { allowInsecure: false, network: receiver.network() };
    expect(await sendWebhook(request(receiver.namedUrl), options)).toEqual({ delivered: false, status: undefined, error: 'tls failed' });
  });

  it('when nothing listens on the port, then the outcome is "connection failed", no errno', async () => {
    const port = await closedPort();
    const options: SendOptions = {
      allowInsecure: false,
      network: { resolve: () => Promise.resolve(['127.0.0.1']), exempt: [`127.0.0.1:${port}`] },
    };
    expect(await sendWebhook(request(`https://127.0.0.1:${port}/hooks`), options)).toEqual({
      delivered: false,
      status: undefined,
      error: 'connection failed',
    });
  });

  it('when the receiver does not answer in time, then the outcome is "timeout"', async () => {
    receiver.answer(() => 'hang');
    const options: SendOptions = { allowInsecure: false, network: receiver.network(), ca: receiver.ca, timeoutMs: 300 };
    expect(await sendWebhook(request(receiver.namedUrl), options)).toEqual({ delivered: false, status: undefined, error: 'timeout' });
    receiver.answer(() => 200);
  });

  it('when the receiver is trusted and answers 204, then it is delivered', async () => {
    receiver.answer(() => 204);
    const options: SendOptions = { allowInsecure: false, network: receiver.network(), ca: receiver.ca };
    expect(await sendWebhook(request(receiver.namedUrl), options)).toEqual({ delivered: true, status: 204, error: undefined });
  });
});
