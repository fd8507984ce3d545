import { Params } from '@platform/wire';
import { adminEdge, decideFormat, oauthEdge, productEdge, publicEdge, routeEdge } from './route-edge';

const decide = (edge = publicEdge, body: unknown = {}, query: unknown = {}) => decideFormat(edge, new Params(query, body));

describe('decideFormat', () => {
  it('when outputFormat is not given, then JSON', () => {
    expect(decide()).toBe('JSON');
  });

  it('when outputFormat is xml in the query, then the format is XML', () => {
    expect(decide(publicEdge, { grantType: 'access_token' }, { outputFormat: 'xml' })).toBe('XML');
  });

  it('when the body and the query disagree, then the body wins', () => {
    expect(decide(publicEdge, { grantType: 'access_token', outputFormat: 'json' }, { outputFormat: 'xml' })).toBe('JSON');
  });

  it.each(['yaml', 'html', ' xml'])('when outputFormat is %j on a JSON-or-XML route, then it is refused', (value) => {
    expect(decide(publicEdge, {}, { outputFormat: value })).toBe('refused');
    expect(decide(productEdge, { outputFormat: value })).toBe('refused');
  });

  it('when outputFormat is repeated or structured, then it is refused', () => {
    expect(decide(publicEdge, {}, { outputFormat: ['xml', 'json'] })).toBe('refused');
    expect(decide(publicEdge, {}, { 'outputFormat[a]': 'xml' })).toBe('refused');
  });

  it.each([
    ['admin', adminEdge],
    ['oauth', oauthEdge],
  ])('when the route is %s (JSON only), then the parameter is never read: JSON whatever it says', (_name, edge) => {
    expect(edge.formats).toEqual(['JSON']);
    expect(decide(edge, {}, { outputFormat: 'XML' })).toBe('JSON');
    expect(decide(edge, { outputFormat: 'yaml' })).toBe('JSON');
  });
});

describe('routeEdge', () => {
  it('when nothing is said, then the route is public: JSON or XML, with the 401 challenge', () => {
    expect(routeEdge('codeMessages')).toEqual({ envelope: 'codeMessages', formats: ['JSON', 'XML'], challenge: true });
  });

  it('when the envelope is oauth, then the route answers JSON only, and XML cannot be declared', () => {
    expect(routeEdge('oauth').formats).toEqual(['JSON']);
    expect(() => routeEdge('oauth', { xml: true })).toThrow('an oauth route answers JSON only');
  });

  it('when a declaration is made, then it cannot be changed afterwards', () => {
    expect(Object.isFrozen(publicEdge)).toBe(true);
    expect(Object.isFrozen(publicEdge.formats)).toBe(true);
  });
});
