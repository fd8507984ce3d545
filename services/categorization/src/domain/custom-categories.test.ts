import { AppError } from '@platform/wire';
import {
  createCustomCategory,
  deleteCategory,
  type CreateOutcome,
  type CustomCategoryWriter,
  type DeleteOutcome,
} from './custom-categories';

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

describe('createCustomCategory', () => {
  it('when the writer creates it, then the category is returned and the name key is lower case', async () => {
    const fake = writer();
    await expect(createCustomCategory(fake, { name: 'Drones', parent: 'IAB-1' }, 'ops')).resolves.toEqual({
      id: 'CUS-1',
      name: 'Drones',
      parent: 'IAB-1',
    });
    expect(fake.created).toEqual([{ name: 'Drones', nameKey: 'drones', parent: 'IAB-1' }]);
  });

  it('when the parent does not exist, then 422 on parent', async () => {
    const error = await rejected(
      createCustomCategory(writer({ create: { kind: 'unknown_parent' } }), { name: 'A', parent: 'CUS-999' }, 'ops'),
    );
    expect(error.fields).toEqual({ parent: ['The selected parent is invalid.'] });
  });

  it('when a sibling has the name, then 409 with a message naming the parent', async () => {
    const error = await rejected(
      createCustomCategory(writer({ create: { kind: 'duplicate_name' } }), { name: 'Sedan', parent: 'IAB-2' }, 'ops'),
    );
    expect(error.code).toBe('conflict');
    expect(error.customMessage).toBe('A category named "Sedan" already exists under IAB-2.');
    const top = await rejected(
      createCustomCategory(writer({ create: { kind: 'duplicate_name' } }), { name: 'Travel', parent: null }, 'ops'),
    );
    expect(top.customMessage).toBe('A category named "Travel" already exists at the top level.');
  });
});

describe('deleteCategory', () => {
  it('when the id is not an id at all, then 404', async () => {
    expect((await rejected(deleteCategory(writer(), 'nonsense', 'ops'))).code).toBe('not_found');
  });

  it('when the id is an existing IAB category, then 409; an unknown IAB id is 404', async () => {
    expect((await rejected(deleteCategory(writer({ exists: true }), 'IAB-1', 'ops'))).code).toBe('conflict');
    expect((await rejected(deleteCategory(writer({ exists: false }), 'IAB-9999', 'ops'))).code).toBe('not_found');
  });

  it('when the custom category has children, then 409; unknown, 404', async () => {
    const error = await rejected(deleteCategory(writer({ remove: { kind: 'has_children' } }), 'CUS-4', 'ops'));
    expect([error.code, error.customMessage]).toEqual(['conflict', 'CUS-4 has child categories; delete them first.']);
    expect((await rejected(deleteCategory(writer({ remove: { kind: 'not_found' } }), 'CUS-4', 'ops'))).code).toBe('not_found');
  });

  it('when the writer deletes it, then it resolves', async () => {
    await expect(deleteCategory(writer(), 'CUS-4', 'ops')).resolves.toBeUndefined();
  });
});
