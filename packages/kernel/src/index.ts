export * from './cors';
export * from './dependency-failure';
export * from './http';
export * from './respond';
export { adminEdge, oauthEdge, productEdge, publicEdge, routeEdge, type RouteEdge } from './route-edge';
export * from './route-declaration';
export * from './route-openapi';
export * from './route-handler';
export * from './document-schema';
