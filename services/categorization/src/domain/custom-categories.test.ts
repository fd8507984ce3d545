import { AppError } from '@platform/wire';
import {
  createCustomCategory,
  deleteCategory,
  readNewCategory,
  type CreateOutcome,
  type CustomCategoryWriter,
  type DeleteOutcome,
} from './custom-categories';

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

async function rejected(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

function writer(
  outcomes: { create?: CreateOutcome; remove?: DeleteOutcome; exists?: boolean } = {},
): CustomCategoryWriter & { created: unknown[] } {
  const created: unknown[] = [];
  return {
    created,
    createCustom(input) {
      created.push(input);
      return Promise.resolve(outcomes.create ?? { kind: 'created', category: { id: 'CUS-1', name: input.name, parent: input.parent } });
    },
    deleteCustom: () => Promise.resolve(outcomes.remove ?? { kind: 'deleted' }),
    exists: () => Promise.resolve(outcomes.exists ?? false),
  };
}

describe('readNewCategory', () => {
  it('when name and parent are valid, then the name is trimmed', () => {
    expect(readNewCategory({ name: '  Drones  ', parent: 'IAB-1' })).toEqual({ name: 'Drones', parent: 'IAB-1' });
    expect(readNewCategory({ name: 'Top', parent: null })).toEqual({ name: 'Top', parent: null });
  });

  it('when name and parent are missing, then both are reported', () => {
    const error = thrown(() => readNewCategory({}));
    expect(error.code).toBe('invalid_params');
    expect(error.fields).toEqual({ name: ['The name field is required.'], parent: ['The parent field is required.'] });
  });

  it.each([
    [{ name: '   ', parent: null }, { name: ['The name field is required.'] }],
    [{ name: null, parent: null }, { name: ['The name field is required.'] }],
    [{ name: 42, parent: null }, { name: ['The selected name is invalid.'] }],
    [{ name: 'a\u0000b', parent: null }, { name: ['The selected name is invalid.'] }],
    [{ name: 'x'.repeat(256), parent: null }, { name: ['The name may not be greater than 255 characters.'] }],
    [{ name: 'ok', parent: '' }, { parent: ['The parent field is required.'] }],
    [{ name: 'ok', parent: 'IAB-x' }, { parent: ['The selected parent is invalid.'] }],
    [{ name: 'ok', parent: 3 }, { parent: ['The selected parent is invalid.'] }],
    [{ name: 'ok', parent: ['IAB-1'] }, { parent: ['The selected parent is invalid.'] }],
  ])('when the body is %p, then 422 with %p', (body, fields) => {
    expect(thrown(() => readNewCategory(body)).fields).toEqual(fields);
  });

  it('when the name has 255 characters counted as code points, then it is accepted', () => {
    expect(readNewCategory({ name: '🎮'.repeat(255), parent: null }).name).toHaveLength(510);
  });
});

describe('createCustomCategory', () => {
  it('when the writer creates it, then the category is returned and the name key is lower case', async () => {
    const fake = writer();
    await expect(createCustomCategory(fake, { name: 'Drones', parent: 'IAB-1' })).resolves.toEqual({
      id: 'CUS-1',
      name: 'Drones',
      parent: 'IAB-1',
    });
    expect(fake.created).toEqual([{ name: 'Drones', nameKey: 'drones', parent: 'IAB-1' }]);
  });

  it('when the parent does not exist, then 422 on parent', async () => {
    const error = await rejected(createCustomCategory(writer({ create: { kind: 'unknown_parent' } }), { name: 'A', parent: 'CUS-999' }));
    expect(error.fields).toEqual({ parent: ['The selected parent is invalid.'] });
  });

  it('when a sibling has the name, then 409 with a message naming the parent', async () => {
    const error = await rejected(createCustomCategory(writer({ create: { kind: 'duplicate_name' } }), { name: 'Sedan', parent: 'IAB-2' }));
    expect(error.code).toBe('conflict');
    expect(error.customMessage).toBe('A category named "Sedan" already exists under IAB-2.');
    const top = await rejected(createCustomCategory(writer({ create: { kind: 'duplicate_name' } }), { name: 'Travel', parent: null }));
    expect(top.customMessage).toBe('A category named "Travel" already exists at the top level.');
  });
});

describe('deleteCategory', () => {
  it('when the id is not an id at all, then 404', async () => {
    expect((await rejected(deleteCategory(writer(), 'nonsense'))).code).toBe('not_found');
  });

  it('when the id is an existing IAB category, then 409; an unknown IAB id is 404', async () => {
    expect((await rejected(deleteCategory(writer({ exists: true }), 'IAB-1'))).code).toBe('conflict');
    expect((await rejected(deleteCategory(writer({ exists: false }), 'IAB-9999'))).code).toBe('not_found');
  });

  it('when the custom category has children, then 409; unknown, 404', async () => {
    const error = await rejected(deleteCategory(writer({ remove: { kind: 'has_children' } }), 'CUS-4'));
    expect([error.code, error.customMessage]).toEqual(['conflict', 'CUS-4 has child categories; delete them first.']);
    expect((await rejected(deleteCategory(writer({ remove: { kind: 'not_found' } }), 'CUS-4'))).code).toBe('not_found');
  });

  it('when the writer deletes it, then it resolves', async () => {
    await expect(deleteCategory(writer(), 'CUS-4')).resolves.toBeUndefined();
  });
});
