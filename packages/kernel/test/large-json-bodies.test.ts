import { declareRoute } from '../src/route-declaration';
import { largeJsonBodies } from '../src/route-mounting';
import { adminEdge } from '../src/route-edge';

const route = (paths: string[], bodyLimit?: string) =>
  declareRoute({
    methods: ['post'],
    paths,
    edge: adminEdge,
    summary: 'Route',
    responses: { 200: 'ok' },
    ...(bodyLimit ? { bodyLimit } : {}),
  });

describe('largeJsonBodies', () => {
  it('when a route declares a body limit, then each of its paths gets it, and no other path', () => {
    expect(largeJsonBodies([route(['/small']), route(['/batch', '/v0/batch'], '1mb')])).toEqual({ '/batch': '1mb', '/v0/batch': '1mb' });
  });

  it('when a path with parameters declares one, then it is refused (the parser looks limits up by path)', () => {
    expect(() => largeJsonBodies([route(['/items/{id}'], '1mb')])).toThrow('bodyLimit on a path with parameters: /items/{id}');
  });
});
