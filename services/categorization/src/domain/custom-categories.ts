import { AppError, invalidMessage, invalidParams, requiredMessage, type FieldMessages } from '@platform/wire';
import { hasForbiddenCharacters, MAX_NAME_LENGTH, nameKey, nameLength, parseCategoryId, type Category } from './category';

/** A custom category to create, after validation. */
export interface NewCategory {
  /** Trimmed, 1–255 characters. */
  name: string;
  /** An id shaped like `IAB-<n>` or `CUS-<n>` (existence is checked when writing), or null for top level. */
  parent: string | null;
}

export type CreateOutcome = { kind: 'created'; category: Category } | { kind: 'unknown_parent' } | { kind: 'duplicate_name' };
export type DeleteOutcome = { kind: 'deleted' } | { kind: 'not_found' } | { kind: 'has_children' };

/** The writes custom categories need; each one is atomic and marks the categories as changed. */
export interface CustomCategoryWriter {
  /** Inserts `CUS-<next number>` unless the parent is missing or a sibling already has the name key. */
  createCustom(input: { name: string; nameKey: string; parent: string | null }): Promise<CreateOutcome>;
  /** Deletes a custom category that has no children. */
  deleteCustom(id: string): Promise<DeleteOutcome>;
  exists(id: string): Promise<boolean>;
}

const tooLongMessage = (field: string): string => `The ${field} may not be greater than ${MAX_NAME_LENGTH} characters.`;

function readName(raw: unknown, errors: FieldMessages): string | undefined {
  if (raw === undefined || raw === null) {
    errors.name = [requiredMessage('name')];
    return undefined;
  }
  if (typeof raw !== 'string') {
    errors.name = [invalidMessage('name')];
    return undefined;
  }
  const name = raw.trim();
  if (name === '') errors.name = [requiredMessage('name')];
  else if (nameLength(name) > MAX_NAME_LENGTH) errors.name = [tooLongMessage('name')];
  else if (hasForbiddenCharacters(name)) errors.name = [invalidMessage('name')];
  else return name;
  return undefined;
}

function readParent(body: Record<string, unknown>, errors: FieldMessages): string | null | undefined {
  // `"parent": null` is a real value here (a top-level category); leaving it out is not (CONTRACT §7).
  if (!Object.hasOwn(body, 'parent') || body.parent === undefined || body.parent === '') {
    errors.parent = [requiredMessage('parent')];
    return undefined;
  }
  const raw = body.parent;
  if (raw === null) return null;
  if (typeof raw !== 'string' || parseCategoryId(raw) === undefined) {
    errors.parent = [invalidMessage('parent')];
    return undefined;
  }
  return raw;
}

/** Validates the body of `POST /admin/v1/categories`; every bad field is reported at once (422). */
export function readNewCategory(body: Record<string, unknown>): NewCategory {
  const errors: FieldMessages = {};
  const name = readName(body.name, errors);
  const parent = readParent(body, errors);
  if (name === undefined || parent === undefined) throw invalidParams(errors);
  return { name, parent };
}

/** Creates `CUS-<n>`: the parent must exist (else 422) and no sibling may have the same name, ignoring case (else 409). */
export async function createCustomCategory(writer: CustomCategoryWriter, input: NewCategory): Promise<Category> {
  const outcome = await writer.createCustom({ name: input.name, nameKey: nameKey(input.name), parent: input.parent });
  switch (outcome.kind) {
    case 'created':
      return outcome.category;
    case 'unknown_parent':
      throw invalidParams({ parent: [invalidMessage('parent')] });
    case 'duplicate_name': {
      const where = input.parent === null ? 'at the top level' : `under ${input.parent}`;
      throw new AppError('conflict', { message: `A category named "${input.name}" already exists ${where}.` });
    }
  }
}

/** Deletes a custom category. IAB categories and categories with children are refused (409); unknown ids are 404. */
export async function deleteCategory(writer: CustomCategoryWriter, id: string): Promise<void> {
  const key = parseCategoryId(id);
  if (!key) throw new AppError('not_found');
  if (key.source === 'IAB') {
    if (await writer.exists(id)) {
      throw new AppError('conflict', { message: `${id} is an IAB category; IAB categories cannot be deleted.` });
    }
    throw new AppError('not_found');
  }
  const outcome = await writer.deleteCustom(id);
  switch (outcome.kind) {
    case 'deleted':
      return;
    case 'not_found':
      throw new AppError('not_found');
    case 'has_children':
      throw new AppError('conflict', { message: `${id} has child categories; delete them first.` });
  }
}
