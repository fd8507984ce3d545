import { z } from 'zod';

/** What an admin token may do (CONTRACT §7, roles): `admin` everything, `support` read only. */
export const ADMIN_ROLES = ['admin', 'support'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** One named secret of a `name[:role]=secret,…` list (ADMIN_TOKENS). */
export interface NamedSecret {
  name: string;
  token: string;
  role: AdminRole;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const isRole = (role: string): role is AdminRole => (ADMIN_ROLES as readonly string[]).includes(role);

/**
 * `name=secret,name:role=secret` (ADMIN_TOKENS): names are 1–64 of `[A-Za-z0-9._-]`, unique; the
 * role is `admin` (the default) or `support`; each secret at least `minLength` characters and
 * different from the others. Problems name the entry by its name or position, never by its secret.
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
        const [name = '', role = 'admin', ...extra] = (equals > 0 ? part.slice(0, equals) : '').split(':').map((piece) => piece.trim());
        const token = equals > 0 ? part.slice(equals + 1).trim() : '';
        if (!NAME.test(name) || extra.length > 0)
          problem(`entry ${index + 1} must be name=token or name:role=token with a name of letters, digits, . _ or -`);
        else if (!isRole(role)) problem(`the token named ${name} has the role ${role}, which is not one of ${ADMIN_ROLES.join(', ')}`);
        else if (token.length < minLength) problem(`the token named ${name} must be at least ${minLength} characters`);
        else if (entries.some((entry) => entry.name === name)) problem(`the name ${name} is given twice`);
        else if (entries.some((entry) => entry.token === token)) problem(`the token named ${name} is also given another name`);
        else entries.push({ name, token, role });
      }
      return entries;
    });
}
