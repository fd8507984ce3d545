import express from 'express';
import request from 'supertest';
import { createBodyParsing } from './body-parsing';

/** An app that parses the body as the kernel does and answers what it got (or the parser's error type). */
function app(): express.Express {
  const served = express();
  served.use(createBodyParsing());
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
});
