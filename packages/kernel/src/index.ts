export * from './cors';
export * from './dependency-failure';
export * from './http';
export * from './openapi';
export * from './respond';
export { adminEdge, oauthEdge, productEdge, publicEdge, routeEdge, type RouteEdge } from './route-edge';
export * from './route-handler';
