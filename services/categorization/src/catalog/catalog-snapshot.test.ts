import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { buildCatalogSnapshot, type CatalogSnapshot } from './catalog-snapshot';

const categories = [
  { id: 'CUS-1', name: 'Fish & <Chips>', parent: 'IAB-1' },
  { id: 'IAB-2', name: 'Boats', parent: 'IAB-1' },
  { id: 'IAB-1', name: 'Water', parent: null },
];

describe('buildCatalogSnapshot', () => {
  let snapshot: CatalogSnapshot;
  beforeAll(async () => {
    snapshot = await buildCatalogSnapshot(7, categories);
  });

  it('when asked for IAB order in JSON, then the body is a bare array in id order', () => {
    const representation = snapshot.representation('IAB', 'JSON');
    expect(representation.contentType).toBe('application/json; charset=utf-8');
    expect(representation.body.toString('utf8')).toBe(
      '[{"id":"IAB-1","name":"Water","parent":null},{"id":"CUS-1","name":"Fish & <Chips>","parent":"IAB-1"},{"id":"IAB-2","name":"Boats","parent":"IAB-1"}]',
    );
  });

  it('when asked for ABC order in XML, then every category is an escaped <item> and null is an empty element', () => {
    const representation = snapshot.representation('ABC', 'XML');
    expect(representation.contentType).toBe('application/xml; charset=utf-8');
    expect(representation.body.toString('utf8')).toBe(
      '<?xml version="1.0" encoding="utf-8"?><xml>' +
        '<item><id>IAB-2</id><name>Boats</name><parent>IAB-1</parent></item>' +
        '<item><id>CUS-1</id><name>Fish &amp; &lt;Chips&gt;</name><parent>IAB-1</parent></item>' +
        '<item><id>IAB-1</id><name>Water</name><parent/></item></xml>',
    );
  });

  it('gives each representation its own strong ETag, and the same content the same ETag', async () => {
    const etags = (['IAB', 'ABC'] as const).flatMap((order) =>
      (['JSON', 'XML'] as const).map((format) => snapshot.representation(order, format).etag),
    );
    expect(new Set(etags).size).toBe(4);
    for (const etag of etags) expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect((await buildCatalogSnapshot(8, [...categories].reverse())).representation('IAB', 'JSON').etag).toBe(etags[0]);
  });

  it('when a category changes, then the ETags change', async () => {
    const renamed = await buildCatalogSnapshot(8, [
      { ...categories[0], name: 'Fish' } as (typeof categories)[number],
      ...categories.slice(1),
    ]);
    expect(renamed.representation('IAB', 'JSON').etag).not.toBe(snapshot.representation('IAB', 'JSON').etag);
    expect(renamed.representation('ABC', 'XML').etag).not.toBe(snapshot.representation('ABC', 'XML').etag);
  });

  it('when there are no categories, then the bodies are an empty array and an empty root', async () => {
    const empty = await buildCatalogSnapshot(1, []);
    expect(empty.representation('IAB', 'JSON').body.toString()).toBe('[]');
    expect(empty.representation('IAB', 'XML').body.toString()).toBe('<?xml version="1.0" encoding="utf-8"?><xml/>');
  });

  it('keeps every representation compressed with br and gzip too, each decoding to the identity body, each with its own strong ETag', () => {
    for (const order of ['IAB', 'ABC'] as const) {
      for (const format of ['JSON', 'XML'] as const) {
        const representation = snapshot.representation(order, format);
        const { identity, gzip, br } = representation.coded;
        expect(identity).toEqual({ body: representation.body, etag: representation.etag });
        expect(gunzipSync(gzip.body)).toEqual(identity.body);
        expect(brotliDecompressSync(br.body)).toEqual(identity.body);
        expect(new Set([identity.etag, gzip.etag, br.etag]).size).toBe(3);
        for (const etag of [gzip.etag, br.etag]) expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      }
    }
  });
});
