/**
 * A route's `plainDocument` (a hot path's reading of its body without the schema) answers what
 * the declared schema answers, or leaves the body to it: on generated bodies, for every declared
 * route that has one, it never accepts a body the schema refuses and never reads one otherwise.
 * It must also read the bodies it exists for (the route's example, and variants of it), or it
 * would be dead weight. A route given a plainDocument later is covered without an edit.
 */
import fc from 'fast-check';
import type { RouteDeclaration } from '@platform/kernel';
import { DECLARED_ROUTES } from './support/declared-endpoints';

const PLAIN_ROUTES = Object.values(DECLARED_ROUTES)
  .flat()
  .filter((route): route is RouteDeclaration & Required<Pick<RouteDeclaration, 'document' | 'plainDocument'>> =>
    Boolean(route.document && route.plainDocument),
  );

/** The example the route documents for its body. */
function exampleOf(route: RouteDeclaration): Record<string, unknown> {
  const example = (route.document?._def as { openapi?: { metadata?: { example?: unknown } } } | undefined)?.openapi?.metadata?.example;
  if (example === null || typeof example !== 'object') throw new Error(`${route.paths[0]}: its document declares no example`);
  return example as Record<string, unknown>;
}

/** Member values near the edges of what JSON bodies hold: numbers of every kind, numeric and odd strings, other kinds. */
const memberValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0, -0, 1, 199, 200, 201, 10_000, 10_001, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 1.5, -1, Number.MAX_SAFE_INTEGER),
  fc.integer(),
  fc.double(),
  fc.constantFrom('', '1', '01', ' 1', '1e3', '-1', 'x', 'x'.repeat(200), 'x'.repeat(201)),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('a\u0000b', 'a\u001fb', 'a\u007fb', 'a\u009fb', '\uD800', 'a\uDC00', '\uD83D\uDE00', 'a\u00a0b'),
  fc.constantFrom(null, true, false, [], ['1'], {}, { a: 1 }),
  fc.constant(undefined),
);

/** The example with some members replaced, removed or added. */
function variants(example: Record<string, unknown>): fc.Arbitrary<unknown> {
  const names = Object.keys(example);
  return fc.oneof(
    fc
      .record(Object.fromEntries(names.map((name) => [name, fc.oneof(fc.constant(example[name]), memberValue)])))
      .chain((body) => fc.dictionary(fc.string({ maxLength: 4 }), memberValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...body }))),
    fc.anything(),
  );
}

describe.each(PLAIN_ROUTES.map((route) => [`${route.methods[0]?.toUpperCase()} ${route.paths[0]}`, route] as const))(
  'the plain reading of %s',
  (_name, route) => {
    const example = exampleOf(route);

    it('when given a generated body, then it answers what the schema answers, or leaves the body to it', () => {
      fc.assert(
        fc.property(variants(example), (body) => {
          const plain = route.plainDocument(body);
          if (plain === undefined) return;
          const parsed = route.document.safeParse(body);
          expect(parsed).toEqual({ success: true, data: plain });
        }),
        { numRuns: 20_000 },
      );
    });

    it('when given the example, or the example with members the schema accepts as they are, then it reads them itself', () => {
      expect(route.plainDocument(example)).toEqual(route.document.parse(example));
      const read = fc.sample(variants(example), 5_000).filter((body) => route.plainDocument(body) !== undefined);
      // Not only the example itself: a real share of the accepted variants takes the plain way.
      expect(read.length).toBeGreaterThan(50);
    });
  },
);

it('when the routes are read, then at least one has a plain reading (the usage API)', () => {
  expect(PLAIN_ROUTES.map((route) => route.paths[0])).toContain('/internal/v1/usage');
});
