import express from 'express';
import request from 'supertest';
import { declareRoute } from '../src/route-declaration';
import { declaredRoutes, mountRouteGroups, routeGroup } from '../src/route-group';
import { adminEdge, publicEdge } from '../src/route-edge';

const publicRoute = declareRoute({ methods: ['get'], paths: ['/shared'], edge: publicEdge, summary: 'Public', responses: { 200: 'ok' } });
const internalRoute = declareRoute({
  methods: ['get'],
  paths: ['/shared'],
  edge: adminEdge,
  summary: 'Internal',
  responses: { 200: 'ok' },
});

/** Each group answers with what it was given (plain express: the kernel's handlers want its app), so that the test sees which group a request reached. */
const publicGroup = routeGroup<{ name: string }>({
  routes: [publicRoute],
  mount: (router, uses) => void router.get('/shared', (_req, res) => void res.send(`public ${uses.name}`)),
});
const internalGroup = routeGroup<{ name: string; units: number }>({
  internal: true,
  routes: [internalRoute],
  mount: (router, uses) => void router.get('/shared', (_req, res) => void res.send(`internal ${uses.name} ${uses.units}`)),
});
// The public group first in the table (the document's order); the internal one is mounted first all the same.
const table = [publicGroup, internalGroup];
const uses = { name: 'ann', units: 3 };

describe('route groups', () => {
  it('when a table is listed, then its declarations come in the table’s order', () => {
    expect(declaredRoutes(table)).toEqual([publicRoute, internalRoute]);
  });

  it('when a service has one app, then the internal groups are mounted on it before the others, with the same uses', async () => {
    const app = express();
    mountRouteGroups({ app }, table, uses);
    const answer = await request(app).get('/shared');
    expect(answer.text).toBe('internal ann 3');
  });

  it('when a service has an internal app, then the internal groups are mounted there only', async () => {
    const app = express();
    const internal = express();
    mountRouteGroups({ app, internal }, table, uses);
    expect((await request(app).get('/shared')).text).toBe('public ann');
    expect((await request(internal).get('/shared')).text).toBe('internal ann 3');
  });
});
