import { z } from 'zod';

/** One named secret of a `name=secret,…` list (ADMIN_TOKENS). */
export interface NamedSecret {
  name: string;
  token: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * `name=secret,name=secret` (ADMIN_TOKENS): names are 1–64 of `[A-Za-z0-9._-]`, unique; each
 * secret at least `minLength` characters and different from the others. Problems name the
 * entry by its name or position, never by its secret.
 */
export function namedSecretsVariable(minLength: number) {
  return z
    .string()
    .optional()
    .transform((spec, context): NamedSecret[] => {
      const entries: NamedSecret[] = [];
      const problem = (message: string): void => context.addIssue({ code: z.ZodIssueCode.custom, message });
      for (const [index, part] of (spec ?? '').split(',').entries()) {
        if (part.trim() === '') continue;
        const equals = part.indexOf('=');
        const name = equals > 0 ? part.slice(0, equals).trim() : '';
        const token = equals > 0 ? part.slice(equals + 1).trim() : '';
        if (!NAME.test(name)) problem(`entry ${index + 1} must be name=token with a name of letters, digits, . _ or -`);
        else if (token.length < minLength) problem(`the token named ${name} must be at least ${minLength} characters`);
        else if (entries.some((entry) => entry.name === name)) problem(`the name ${name} is given twice`);
        else if (entries.some((entry) => entry.token === token)) problem(`the token named ${name} is also given another name`);
        else entries.push({ name, token });
      }
      return entries;
    });
}
