import { declareRoute } from './route-declaration';
import { adminEdge, publicEdge } from './route-edge';
import { serviceDocuments } from './admin-document';

const route = (path: string, security: string, deprecatedPaths: string[] = []) =>
  declareRoute({
    methods: ['get'],
    paths: [path],
    deprecatedPaths,
    edge: path.startsWith('/user') ? publicEdge : adminEdge,
    summary: path,
    security: [{ [security]: [] }],
    responses: { 200: { description: 'Yes' } },
  });

const SCHEMES = {
  credential: { type: 'http', scheme: 'bearer' },
  admin: { type: 'http', scheme: 'bearer' },
  serviceJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
};

type Document = { paths: Record<string, unknown>; components?: { securitySchemes?: Record<string, unknown> } };

describe('serviceDocuments', () => {
  const { openapi, adminOpenapi } = serviceDocuments({
    info: { title: 'Split', version: '1' },
    routes: [route('/user/balance', 'credential'), route('/admin/v1/things', 'admin'), route('/internal/v1/usage', 'serviceJwt')],
    securitySchemes: SCHEMES,
    adminScheme: 'admin',
  }) as { openapi: Document; adminOpenapi: Document };

  it('when a service declares public, admin and internal routes, then the public document names only the public ones and their scheme', () => {
    expect(Object.keys(openapi.paths)).toEqual(['/user/balance']);
    expect(openapi.components?.securitySchemes).toEqual({ credential: SCHEMES.credential });
  });

  it('when the admin document is made, then it names the admin and internal routes and itself, behind the admin scheme', () => {
    expect(Object.keys(adminOpenapi.paths)).toEqual(['/admin/v1/things', '/internal/v1/usage', '/admin/v1/openapi.json']);
    expect(Object.keys(adminOpenapi.components?.securitySchemes ?? {}).sort()).toEqual(['admin', 'serviceJwt']);
    expect(adminOpenapi.paths['/admin/v1/openapi.json']).toMatchObject({ get: { security: [{ admin: [] }] } });
  });

  it('when one declaration mounts a public path and an admin path, then the documents are refused (it would leak either way)', () => {
    expect(() =>
      serviceDocuments({
        info: { title: 'Mixed', version: '1' },
        routes: [route('/user/balance', 'credential', ['/admin/v1/balance'])],
        adminScheme: 'admin',
      }),
    ).toThrow('public and admin paths in one declaration');
  });
});
