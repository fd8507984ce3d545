import request from 'supertest';
import { eventually, expectMalformedJson, uniqueId } from '@platform/testing';
import type { Category } from '../src/domain/category';
import { ADMIN_TOKEN, customCategories, ids, startService, type StartedService } from './helpers';

const ADMIN_PATH = '/admin/v1/categories';
const NOT_FOUND = { code: 404, messages: 'Not found.' };

describe('admin API for custom categories', () => {
  let started: StartedService;
  let url: string;
  const custom = customCategories(() => url);
  const create = custom.create;

  beforeAll(async () => {
    started = await startService({ CATEGORY_REFRESH_INTERVAL_MS: '100' });
    url = started.service.url;
  });

  afterAll(async () => {
    await custom.removeAll();
    await started.service.stop();
  });

  const post = (body: unknown, base = url): request.Test =>
    request(base)
      .post(ADMIN_PATH)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send(body as object);
  const remove = (id: string, base = url): request.Test =>
    request(base).delete(`${ADMIN_PATH}/${id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  const list = async (base = url): Promise<Category[]> => (await request(base).get('/api/v2/categories')).body as Category[];

  describe('authentication', () => {
    it('when the admin token is missing or wrong, then 401 in JSON without WWW-Authenticate', async () => {
      const requests = [
        request(url).post(ADMIN_PATH).send({ name: 'x', parent: null }),
        request(url).post(ADMIN_PATH).set('Authorization', `Bearer ${ADMIN_TOKEN}x`).send({ name: 'x', parent: null }),
        request(url).post(`${ADMIN_PATH}?outputFormat=XML`).set('Authorization', 'Bearer wrong').send({ name: 'x', parent: null }),
        request(url)
          .delete(`${ADMIN_PATH}/CUS-1`)
          .set('Authorization', `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`),
      ];
      for (const response of await Promise.all(requests)) {
        expect(response.status).toBe(401);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.body).toEqual({ code: 401, messages: 'Access restricted. Check credits balance or enter the correct API key.' });
        expect(response.headers['www-authenticate']).toBeUndefined();
      }
    });
  });

  describe('POST /admin/v1/categories', () => {
    it('when name and parent are valid, then 201 with CUS-<n>, the trimmed name and the parent, listed at once', async () => {
      const name = `Drones ${uniqueId()}`;
      const response = await post({ name: `  ${name}  `, parent: 'IAB-1' });
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const category = response.body as Category;
      custom.keep(category);
      expect(category).toEqual({ id: expect.stringMatching(/^CUS-[1-9][0-9]*$/), name, parent: 'IAB-1' });
      expect(await list()).toContainEqual(category);
    });

    it('when parent is null, then a top-level category; under a custom category, a child of it', async () => {
      const top = await create(`Top ${uniqueId()}`, null);
      const child = await create(`Child ${uniqueId()}`, top.id);
      expect(top.parent).toBeNull();
      expect(child.parent).toBe(top.id);
      expect(Number(child.id.slice(4))).toBeGreaterThan(Number(top.id.slice(4)));
    });

    it('when name and parent are missing, then 422 with both messages', async () => {
      const response = await post({});
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        code: 422,
        messages: { name: ['The name field is required.'], parent: ['The parent field is required.'] },
      });
    });

    it('when the parent does not exist, then 422 on parent', async () => {
      for (const parent of ['IAB-999', 'CUS-999999999', 'Sports']) {
        const response = await post({ name: `Orphan ${uniqueId()}`, parent });
        expect(response.status).toBe(422);
        expect(response.body).toEqual({ code: 422, messages: { parent: ['The selected parent is invalid.'] } });
      }
    });

    it('when the name is blank or longer than 255 characters, then 422 on name', async () => {
      const blank = await post({ name: '   ', parent: 'IAB-1' });
      expect(blank.status).toBe(422);
      expect(blank.body).toEqual({ code: 422, messages: { name: ['The name field is required.'] } });
      const long = await post({ name: 'x'.repeat(256), parent: 'IAB-1' });
      expect(long.body).toEqual({ code: 422, messages: { name: ['The name may not be greater than 255 characters.'] } });
      const exactly = await create(`${uniqueId()}${'x'.repeat(255)}`.slice(0, 255), 'IAB-1');
      expect(exactly.name).toHaveLength(255);
    });

    it('when a sibling has the same name ignoring case, then 409 with a message string', async () => {
      const name = `Gadgets ${uniqueId()}`;
      await create(name, 'IAB-1');
      const response = await post({ name: name.toUpperCase(), parent: 'IAB-1' });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ code: 409, messages: `A category named "${name.toUpperCase()}" already exists under IAB-1.` });
    });

    it('when an IAB sibling has the name, then 409; at the top level too', async () => {
      const underParent = await post({ name: 'sedan', parent: 'IAB-2' });
      expect(underParent.status).toBe(409);
      expect(underParent.body).toEqual({ code: 409, messages: 'A category named "sedan" already exists under IAB-2.' });
      const top = await post({ name: 'AUTOMOTIVE', parent: null });
      expect(top.body).toEqual({ code: 409, messages: 'A category named "AUTOMOTIVE" already exists at the top level.' });
    });

    it('when the same name is under another parent, then it is allowed', async () => {
      const parent = await create(`Elsewhere ${uniqueId()}`, 'IAB-1');
      const category = await create('Sedan', parent.id);
      expect(category).toEqual({ id: expect.stringMatching(/^CUS-/), name: 'Sedan', parent: parent.id });
    });

    it('when the body is not valid JSON, then 400', async () => {
      await expectMalformedJson(request(url).post(ADMIN_PATH).set('Authorization', `Bearer ${ADMIN_TOKEN}`), 'name');
    });
  });

  describe('DELETE /admin/v1/categories/:id', () => {
    it('when the custom category has no children, then 204, gone from the list; deleting again is 404', async () => {
      const category = await create(`Doomed ${uniqueId()}`, 'IAB-1');
      const response = await remove(category.id);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(ids(await list())).not.toContain(category.id);
      const again = await remove(category.id);
      expect(again.status).toBe(404);
      expect(again.body).toEqual(NOT_FOUND);
    });

    it('when the category has children, then 409 with a message, and it stays', async () => {
      const parent = await create(`Parent ${uniqueId()}`, null);
      await create(`Kid ${uniqueId()}`, parent.id);
      const response = await remove(parent.id);
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ code: 409, messages: `${parent.id} has child categories; delete them first.` });
      expect(ids(await list())).toContain(parent.id);
    });

    it('when the category is an IAB category, then 409', async () => {
      const response = await remove('IAB-698');
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ code: 409, messages: 'IAB-698 is an IAB category; IAB categories cannot be deleted.' });
    });

    it('when the id is unknown or not an id, then 404', async () => {
      for (const id of ['CUS-999999999', 'IAB-999', 'nonsense', 'cus-1']) {
        const response = await remove(id);
        expect(response.status).toBe(404);
        expect(response.body).toEqual(NOT_FOUND);
      }
    });
  });

  describe('replicas', () => {
    it('when one instance changes the categories, then a second instance serves the change within its poll interval', async () => {
      const second = await startService({ CATEGORY_REFRESH_INTERVAL_MS: '100' });
      try {
        const { etag: before } = (await request(second.service.url).get('/api/v2/categories')).headers as { etag: string };
        const category = await create(`Replicated ${uniqueId()}`, 'IAB-483');
        const served = await eventually(
          async () => {
            const response = await request(second.service.url).get('/api/v2/categories');
            return (response.body as Category[]).some((entry) => entry.id === category.id) ? response : undefined;
          },
          5000,
          'the second instance to list the new category',
        );
        expect(served.headers.etag).not.toBe(before);
        expect(served.body as Category[]).toContainEqual(category);

        expect((await remove(category.id, url)).status).toBe(204);
        await eventually(
          async () => (ids(await list(second.service.url)).includes(category.id) ? undefined : true),
          5000,
          'the delete to reach the second instance',
        );
      } finally {
        await second.service.stop();
      }
    });
  });
});
