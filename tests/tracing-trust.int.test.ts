/**
 * Tracing trusts no caller's `traceparent` by default (TRACE_TRUST_INCOMING): a client cannot
 * choose its trace id, nor switch recording off with the flags `00`. With `true`, or from a
 * listed proxy, the trace continues. The server runs in a child process (tests/tracing/trust-server.ts)
 * because the instrumentations patch modules as Node loads them, which jest's module sandbox bypasses.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import path from 'node:path';
import { sourceNodeArgs, useStarted } from '@platform/testing';

interface ServerSpan {
  target: string;
  traceId: string;
  parentSpanId: string | null;
  sampled: boolean;
}

interface TracedServer {
  /** Sends a request with the given traceparent; answers the server span it made (none: not recorded). */
  call(traceparent: string): Promise<ServerSpan | undefined>;
  stop(): Promise<void>;
}

const marker = (): string => randomBytes(6).toString('hex');

async function startServer(trust: string | undefined): Promise<TracedServer> {
  const child: ChildProcess = fork(path.join(__dirname, 'tracing/trust-server.ts'), [], {
    execArgv: sourceNodeArgs,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { PATH: process.env.PATH, ...(trust === undefined ? {} : { TRACE_TRUST_INCOMING: trust }) },
  });
  const spans: ServerSpan[] = [];
  const waiting = new Map<string, (span: ServerSpan) => void>();
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (message: { url?: string; span?: ServerSpan }) => {
      if (message.url !== undefined) resolve(message.url);
      const span = message.span;
      if (span === undefined) return;
      spans.push(span);
      for (const [call, done] of waiting) if (span.target.endsWith(`/${call}`)) done(span);
    });
    child.once('exit', reject);
  });
  /** The span of the request to /traced/<call>, once it has ended. */
  const spanOf = (call: string): Promise<ServerSpan> =>
    new Promise((resolve) => {
      const found = spans.find((span) => span.target.endsWith(`/${call}`));
      if (found) resolve(found);
      else waiting.set(call, resolve);
    });
  // A request written on a socket of its own: fetch and node:http may carry the instrumentations
  // of another test file that ran in this jest worker (undici's listen on a process-wide
  // diagnostics channel), which add a traceparent of their own beside the test's.
  const send = async (call: string, traceparent: string): Promise<void> => {
    const { hostname, port } = new URL(url);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.end(
          `GET /traced/${call} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${traceparent === '' ? '' : `traceparent: ${traceparent}\r\n`}Connection: close\r\n\r\n`,
        );
      });
      let received = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
  };
  return {
    async call(traceparent) {
      const call = marker();
      await send(call, traceparent);
      // A request without a caller's trace context is always recorded; once its span has ended,
      // the span of the request before it (answered first) has ended too, if it was recorded.
      const after = marker();
      await send(after, '');
      await spanOf(after);
      return spans.find((span) => span.target.endsWith(`/${call}`));
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

const traceparent = (flags: '00' | '01') => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-${flags}`, traceId, spanId };
};

// Whether the caller's trace context is followed: it is only when the setting trusts the caller
// (127.0.0.1). Trusted, the caller's trace continues and its sampling decision holds; untrusted,
// the server starts a trace of its own and records it whatever the caller's flags say.
describe.each([
  ['unset', undefined, false],
  ['false', 'false', false],
  ['a proxy list without the caller', '10.0.0.0/8', false],
  ['true', 'true', true],
  ['a proxy list naming the caller', '127.0.0.1, 10.0.0.0/8', true],
])('TRACE_TRUST_INCOMING %s', (_name, trust, trusted) => {
  const server = useStarted(() => startServer(trust), 30_000);

  it(`when a caller sends a traceparent, then the server span ${trusted ? 'continues that trace as a child of the caller’s span' : 'starts a new trace (a root) of its own'}`, async () => {
    const incoming = traceparent('01');
    const span = await server.call(incoming.header);
    const child = { traceId: incoming.traceId, parentSpanId: incoming.spanId, sampled: true };
    expect(span).toMatchObject(trusted ? child : { parentSpanId: null, sampled: true });
    expect(span?.traceId === incoming.traceId).toBe(trusted);
  });

  it(`when a caller sends flags 00, then ${trusted ? 'its decision holds: no span is recorded' : 'the span is recorded all the same (the sampler decides)'}`, async () => {
    const incoming = traceparent('00');
    const span = await server.call(incoming.header);
    expect(span).toEqual(trusted ? undefined : expect.objectContaining({ parentSpanId: null, sampled: true }));
    expect(span?.traceId).not.toBe(incoming.traceId);
  });
});
