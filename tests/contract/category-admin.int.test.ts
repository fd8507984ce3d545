/**
 * CONTRACT §7/§9: the category admin API of the categorization service.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { uniqueId } from '@platform/testing';
import { ADMIN_TOKEN, JSON_TYPE, NOT_FOUND, OPS_TOKEN, expectBody, unauthorized, usePlatform, type Category, type Reply } from './support';

const { send, admin } = usePlatform({ categorization: true });

describe('§7/§9 category admin API', () => {
  const createCategory = (json: unknown, token?: string): Promise<Reply> => admin('POST', '/admin/v1/categories', json, token);
  const remove = (id: string, token?: string): Promise<Reply> => admin('DELETE', `/admin/v1/categories/${id}`, undefined, token);
  const listed = async (id: string): Promise<boolean> =>
    ((await send('categorization', '/api/v2/categories')).json() as Category[]).some((category) => category.id === id);

  it.each<[string, () => Promise<string | null>]>([
    ['an IAB parent', () => Promise.resolve('IAB-1')],
    ['no parent (null)', () => Promise.resolve(null)],
    ['a custom parent', async () => ((await createCategory({ name: `Parent ${uniqueId()}`, parent: null })).json() as Category).id],
  ])('when a category is created under %s, then 201 {"id":"CUS-<n>","name","parent"} and it is listed at once', async (_case, parent) => {
    const name = `Drones ${uniqueId()}`;
    const parentId = await parent();
    const reply = await createCategory({ name, parent: parentId });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 201, type: JSON_TYPE });
    const body = reply.json() as Category;
    expect(body.id).toMatch(/^CUS-[1-9][0-9]*$/);
    expect(reply.text).toBe(JSON.stringify({ id: body.id, name, parent: parentId }));
    expect(await listed(body.id)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['the parent is missing', { name: 'No parent given' }],
    ['the name is missing', { parent: 'IAB-1' }],
    ['the name is empty', { name: '', parent: 'IAB-1' }],
    ['the name is not a string', { name: ['x'], parent: 'IAB-1' }],
    ['the parent does not exist', { name: 'Orphan', parent: 'IAB-99999' }],
    ['the parent is not a category id', { name: 'Orphan', parent: 'automotive' }],
  ])('when %s, then 422 with a messages object', async (_case, json) => {
    const reply = await createCategory(json);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    const body = reply.json() as { code: number; messages: unknown };
    expect(body.code).toBe(422);
    expect(typeof body.messages === 'object' && body.messages !== null && !Array.isArray(body.messages)).toBe(true);
  });

  it.each<[string, (name: string) => unknown, (name: string) => unknown]>([
    ['the same name under the same parent', (name) => ({ name, parent: 'IAB-1' }), (name) => ({ name, parent: 'IAB-1' })],
    ['the same name in another case', (name) => ({ name, parent: 'IAB-1' }), (name) => ({ name: name.toUpperCase(), parent: 'IAB-1' })],
  ])('when a category repeats %s, then 409 with a messages string', async (_case, first, second) => {
    const name = `Twin ${uniqueId()}`;
    const original = await createCategory(first(name));
    expect(original.status).toBe(201);
    const reply = await createCategory(second(name));
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
    await remove((original.json() as Category).id);
  });

  it.each<[string, unknown]>([
    ['an IAB top-level sibling (automotive)', { name: 'automotive', parent: null }],
    ['an IAB child sibling (auto body styles under IAB-1)', { name: 'AUTO BODY STYLES', parent: 'IAB-1' }],
  ])('when the name equals %s, case-insensitively, then 409', async (_case, json) => {
    const reply = await createCategory(json);
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
  });

  it('when the same name is used under another parent, then 201', async () => {
    const name = `Elsewhere ${uniqueId()}`;
    const first = await createCategory({ name, parent: 'IAB-1' });
    const second = await createCategory({ name, parent: 'IAB-2' });
    expect([first.status, second.status]).toEqual([201, 201]);
  });

  it('when a custom category is deleted, then 204 with no body, it leaves the list, and deleting it again is 404', async () => {
    const category = (await createCategory({ name: `Doomed ${uniqueId()}`, parent: 'IAB-1' })).json() as Category;
    const reply = await remove(category.id);
    expect({ status: reply.status, text: reply.text }).toEqual({ status: 204, text: '' });
    expect(await listed(category.id)).toBe(false);
    expectBody(await remove(category.id), 404, NOT_FOUND);
  });

  it.each<[string, () => Promise<string>]>([
    ['an IAB category', () => Promise.resolve('IAB-1')],
    ['an IAB leaf', () => Promise.resolve('IAB-3')],
    [
      'a custom category with children',
      async () => {
        const parent = (await createCategory({ name: `Family ${uniqueId()}`, parent: null })).json() as Category;
        await createCategory({ name: `Child ${uniqueId()}`, parent: parent.id });
        return parent.id;
      },
    ],
  ])('when %s is deleted, then 409 with a messages string and it stays', async (_case, id) => {
    const target = await id();
    const reply = await remove(target);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
    expect(await listed(target)).toBe(true);
  });

  it.each(['CUS-987654321', 'IAB-99999', 'nonsense'])('when %p is deleted, then 404 {"code":404,"messages":"Not found."}', async (id) => {
    expectBody(await remove(id), 404, NOT_FOUND);
  });

  it.each<[string, () => Promise<Reply>]>([
    ['POST without a token', () => send('categorization', '/admin/v1/categories', { json: { name: 'x', parent: null } })],
    ['POST with a wrong token', () => createCategory({ name: 'x', parent: null }, `${ADMIN_TOKEN}-wrong`)],
    ['DELETE without a token', () => send('categorization', '/admin/v1/categories/CUS-1', { method: 'DELETE' })],
    ['DELETE of an IAB category with a wrong token', () => remove('IAB-1', 'wrong')],
  ])('when %s, then 401, JSON, no WWW-Authenticate', async (_case, request) => {
    const reply = await request();
    expectBody(reply, 401, unauthorized);
    expect(reply.header('www-authenticate')).toBeNull();
  });

  it('when a category is created and deleted, then the audit log names the token of each, with the category', async () => {
    const name = `Audited ${uniqueId()}`;
    const created = (await createCategory({ name, parent: 'IAB-1' }, OPS_TOKEN)).json() as Category;
    expect((await remove(created.id)).status).toBe(204);
    const refused = await createCategory({ name, parent: 'IAB-99999' }, OPS_TOKEN);
    expect(refused.status).toBe(422);
    const audit = (await admin('GET', '/admin/v1/audit?limit=100')).json() as { data: Array<{ details: { id?: unknown } }> };
    const rows = audit.data.filter((row) => row.details.id === created.id).map(({ at: _at, ...row }: Record<string, unknown>) => row);
    const category = { id: created.id, name, parent: 'IAB-1' };
    expect(rows).toEqual([
      { actor: 'admin', action: 'category.delete', accountId: null, details: category },
      { actor: 'ops', action: 'category.create', accountId: null, details: category },
    ]);
  });
});
