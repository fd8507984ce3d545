/**
 * Baselines of `pnpm bench`, in their own process: a bare express handler answering a small JSON
 * body (POST /, body not read), and one sending a precomputed identity body (GET /categories,
 * the file named by CATEGORIES_BODY_FILE: the category list as the platform serves it).
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const categories = process.env.CATEGORIES_BODY_FILE ? readFileSync(process.env.CATEGORIES_BODY_FILE) : Buffer.from('[]');
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/categories', (_req, res) => {
  res.type('application/json; charset=utf-8').send(categories);
});
app.all('/', (_req, res) => {
  res.json({ accessToken: 'x'.repeat(52), expiresIn: 3600 });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
