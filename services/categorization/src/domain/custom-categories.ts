import { AppError, invalidMessage, invalidParams } from '@platform/wire';
import { nameKey, parseCategoryId, type Category } from './category';

/** A custom category to create, as the route's schema read it (`NewCategoryBody`). */
export interface NewCategory {
  /** Trimmed, 1–255 characters. */
  name: string;
  /** An id shaped like `IAB-<n>` or `CUS-<n>` (existence is checked when writing), or null for top level. */
  parent: string | null;
}

export type CreateOutcome = { kind: 'created'; category: Category } | { kind: 'unknown_parent' } | { kind: 'duplicate_name' };
export type DeleteOutcome = { kind: 'deleted' } | { kind: 'not_found' } | { kind: 'has_children' };

/**
 * The writes custom categories need; each one is atomic, marks the categories as changed and
 * writes its audit row under `actor` (the admin token's name) in the same transaction.
 */
export interface CustomCategoryWriter {
  /** Inserts `CUS-<next number>` unless the parent is missing or a sibling already has the name key. */
  createCustom(input: { name: string; nameKey: string; parent: string | null }, actor: string): Promise<CreateOutcome>;
  /** Deletes a custom category that has no children. */
  deleteCustom(id: string, actor: string): Promise<DeleteOutcome>;
  exists(id: string): Promise<boolean>;
}

/** Creates `CUS-<n>`: the parent must exist (else 422) and no sibling may have the same name, ignoring case (else 409). */
export async function createCustomCategory(writer: CustomCategoryWriter, input: NewCategory, actor: string): Promise<Category> {
  const outcome = await writer.createCustom({ name: input.name, nameKey: nameKey(input.name), parent: input.parent }, actor);
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
export async function deleteCategory(writer: CustomCategoryWriter, id: string, actor: string): Promise<void> {
  const key = parseCategoryId(id);
  if (!key) throw new AppError('not_found');
  if (key.source === 'IAB') {
    if (await writer.exists(id)) {
      throw new AppError('conflict', { message: `${id} is an IAB category; IAB categories cannot be deleted.` });
    }
    throw new AppError('not_found');
  }
  const outcome = await writer.deleteCustom(id, actor);
  switch (outcome.kind) {
    case 'deleted':
      return;
    case 'not_found':
      throw new AppError('not_found');
    case 'has_children':
      throw new AppError('conflict', { message: `${id} has child categories; delete them first.` });
  }
}
