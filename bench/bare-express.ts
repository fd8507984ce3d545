/** The baseline: a bare express handler answering a small JSON body, in its own process. */
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.all('/', (_req, res) => {
  res.json({ accessToken: 'x'.repeat(52), expiresIn: 3600 });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
