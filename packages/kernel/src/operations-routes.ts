import { z } from 'zod';
import { declareRoute, type RouteDeclaration } from './route-declaration';
import { adminEdge } from './route-edge';

const Liveness = z.object({ status: z.literal('ok') }).openapi('Liveness');
const Readiness = z
  .object({
    status: z.enum(['ready', 'not ready', 'draining']),
    checks: z.record(z.string()).optional().openapi({ description: "Each dependency's state (`ok` or what failed); absent when ready." }),
  })
  .openapi('Readiness');
const Release = z.object({ version: z.string(), commit: z.string() }).openapi('Release');
const Text = z.string();

/** The files of `/docs` (docs-page.ts): the page's starter and Swagger UI's own bundle and styles. */
export const DOCS_ASSETS = ['start.js', 'swagger-ui-bundle.js', 'swagger-ui.css'] as const;

/** The kernel's operations endpoints (CONTRACT §8), mounted by `createHttpApp` itself; a service without a public API documents these. */
export const operationsRoutes: ReadonlyArray<RouteDeclaration> = [
  declareRoute({
    methods: ['get'],
    paths: ['/health/live'],
    edge: adminEdge,
    summary: 'Liveness (touches no dependency)',
    responses: { 200: { description: 'Alive', body: Liveness } },
  }),
  declareRoute({
    methods: ['get'],
    paths: ['/health/ready'],
    edge: adminEdge,
    summary: 'Readiness: every dependency of the service',
    responses: {
      200: { description: 'Ready', body: Readiness },
      503: { description: 'Not ready or draining, with each check', body: Readiness },
    },
  }),
  declareRoute({
    methods: ['get'],
    paths: ['/metrics'],
    edge: adminEdge,
    summary: 'Prometheus metrics',
    responses: {
      200: { description: 'The Prometheus text format', media: { 'text/plain; version=0.0.4': Text } },
      401: 'METRICS_TOKEN is set and the request does not carry it',
    },
  }),
  declareRoute({
    methods: ['get'],
    paths: ['/openapi.json'],
    edge: adminEdge,
    summary: 'This document',
    responses: {
      200: {
        description: 'OpenAPI 3.1',
        body: z.object({ openapi: z.string() }).passthrough().openapi({ description: 'An OpenAPI 3.1 document' }),
      },
    },
  }),
  declareRoute({
    methods: ['get'],
    paths: ['/version'],
    edge: adminEdge,
    summary: 'The running release',
    responses: { 200: { description: 'Version and commit', body: Release } },
  }),
  declareRoute({
    methods: ['get'],
    paths: ['/docs'],
    edge: adminEdge,
    summary: 'This document as a reference in a browser',
    responses: {
      200: {
        description: 'The reference page (its scripts and styles are the service’s own files)',
        media: { 'text/html': Text },
      },
    },
  }),
  declareRoute({
    methods: ['get'],
    paths: ['/docs/assets/{file}'],
    edge: adminEdge,
    summary: 'A script or stylesheet of the reference page',
    pathParams: { file: z.enum(DOCS_ASSETS) },
    responses: {
      200: { description: 'The file', media: { 'text/javascript': Text, 'text/css': Text } },
      404: 'No such file',
    },
  }),
];
