import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createBodyParsing } from './body-parsing';

/** An app that parses the body as the kernel does and answers what it got (or the parser's error type). */
function app(largeJson: Record<string, string> = {}): express.Express {
  const served = express();
  served.use(createBodyParsing(largeJson));
  served.use((req, res) => {
    res.json({ body: (req.body as unknown) ?? null });
  });
  served.use((error: { type?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(400).json({ type: error.type });
  });
  return served;
}

describe('createBodyParsing', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'])(
    'when the body is %s, then it is parsed as JSON',
    async (type) => {
      const reply = await request(app()).post('/').set('Content-Type', type).send('{"a":1}');
      expect(reply.body).toEqual({ body: { a: 1 } });
    },
  );

  it.each(['application/x-www-form-urlencoded', 'Application/X-WWW-Form-Urlencoded; charset=utf-8'])(
    'when the body is %s, then it is parsed as a form',
    async (type) => {
      const reply = await request(app()).post('/').set('Content-Type', type).send('a=1&b=2');
      expect(reply.body).toEqual({ body: { a: '1', b: '2' } });
    },
  );

  it('when the body has another media type, then it is left unread', async () => {
    const reply = await request(app()).post('/').set('Content-Type', 'text/plain').send('a=1');
    expect(reply.body).toEqual({ body: null });
  });

  it('when a path has a larger JSON limit, then a body over 16 KiB is read there and refused elsewhere', async () => {
    const big = JSON.stringify({ a: 'x'.repeat(100 * 1024) });
    const served = app({ '/batch': '1mb' });
    const there = await request(served).post('/batch').set('Content-Type', 'application/json').send(big);
    const elsewhere = await request(served).post('/other').set('Content-Type', 'application/json').send(big);
    const tooBig = await request(served)
      .post('/batch')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ a: 'x'.repeat(1024 * 1024) }));
    expect([there.body, elsewhere.body, tooBig.body]).toEqual([
      { body: { a: 'x'.repeat(100 * 1024) } },
      { type: 'entity.too.large' },
      { type: 'entity.too.large' },
    ]);
  });

  it('when a form body is over 16 KiB, then the parser refuses it as too large', async () => {
    const reply = await request(app())
      .post('/')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`a=${'x'.repeat(17 * 1024)}`);
    expect(reply.body).toEqual({ type: 'entity.too.large' });
  });

  it('when a JSON body is malformed, then the parser refuses it', async () => {
    const reply = await request(app()).post('/').set('Content-Type', 'application/json').send('{"a":');
    expect(reply.body).toEqual({ type: 'entity.parse.failed' });
  });

  /** Sends raw bytes as they are (supertest would serialize a Buffer sent as JSON). */
  async function postRaw(type: string, encoding: string, data: Buffer): Promise<unknown> {
    const server = app().listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const reply = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': type, 'content-encoding': encoding },
        body: data,
      });
      return await reply.json();
    } finally {
      server.close();
    }
  }

  const corrupt: Record<string, Buffer> = {
    gzip: gzipSync('{"a":1}').subarray(0, 12),
    deflate: Buffer.from('xx'),
    br: Buffer.from('this is not brotli at all, just text'),
  };
  it.each(
    Object.keys(corrupt).flatMap((encoding) => [
      [encoding, 'application/json'],
      [encoding, 'application/x-www-form-urlencoded'],
    ]),
  )('when a %s body (%s) does not decode, then the parser refuses it as a body that does not decode', async (encoding, type) => {
    expect(await postRaw(type, encoding, corrupt[encoding] ?? Buffer.alloc(0))).toEqual({ type: 'entity.decode.failed' });
  });

  it.each([
    ['gzip', gzipSync('{"a":1}')],
    ['deflate', deflateSync('{"a":1}')],
    ['br', brotliCompressSync('{"a":1}')],
  ])('when a %s body decodes, then it is parsed', async (encoding, data) => {
    expect(await postRaw('application/json', encoding, data)).toEqual({ body: { a: 1 } });
  });
});
