import { AppError, Params } from '@platform/wire';
import { validateParams } from '@platform/kernel';
import { createCategoryRoute } from './admin.routes';

/** The category the body names, or the fields of the 422. */
function newCategory(body: Record<string, unknown>): unknown {
  try {
    return validateParams(createCategoryRoute, new Params({}, body)).document;
  } catch (error) {
    if (error instanceof AppError) return error.fields;
    throw error;
  }
}

describe('the body of POST /admin/v1/categories', () => {
  it('when name and parent are valid, then the name is trimmed', () => {
    expect(newCategory({ name: '  Drones  ', parent: 'IAB-1' })).toEqual({ name: 'Drones', parent: 'IAB-1' });
    expect(newCategory({ name: 'Top', parent: null })).toEqual({ name: 'Top', parent: null });
  });

  it('when name and parent are missing, then both are reported', () => {
    expect(newCategory({})).toEqual({ name: ['The name field is required.'], parent: ['The parent field is required.'] });
  });

  it.each([
    [{ name: '   ', parent: null }, { name: ['The name field is required.'] }],
    [{ name: null, parent: null }, { name: ['The name field is required.'] }],
    [{ name: 42, parent: null }, { name: ['The selected name is invalid.'] }],
    [{ name: 'a\u0000b', parent: null }, { name: ['The selected name is invalid.'] }],
    [{ name: 'x'.repeat(256), parent: null }, { name: ['The name may not be greater than 255 characters.'] }],
    [{ name: `\u0000${'x'.repeat(256)}`, parent: null }, { name: ['The name may not be greater than 255 characters.'] }],
    [{ name: 'ok', parent: '' }, { parent: ['The parent field is required.'] }],
    [{ name: 'ok', parent: 'IAB-x' }, { parent: ['The selected parent is invalid.'] }],
    [{ name: 'ok', parent: 'IAB-01' }, { parent: ['The selected parent is invalid.'] }],
    [{ name: 'ok', parent: 3 }, { parent: ['The selected parent is invalid.'] }],
    [{ name: 'ok', parent: ['IAB-1'] }, { parent: ['The selected parent is invalid.'] }],
  ])('when the body is %p, then 422 with %p', (body, fields) => {
    expect(newCategory(body)).toEqual(fields);
  });

  it('when the name has 255 characters counted as code points, then it is accepted', () => {
    expect((newCategory({ name: '🎮'.repeat(255), parent: null }) as { name: string }).name).toHaveLength(510);
  });
});
