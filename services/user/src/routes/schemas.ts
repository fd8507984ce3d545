/** The user service's wire schemas (zod, named as OpenAPI components) and the parameter schemas its routes share. */
import { isMailboxAddress, NUMERIC } from '@platform/wire';
import { absentIfEmpty } from '@platform/kernel';
import { z } from 'zod';
import { MAX_ID } from '../domain/integer-field';
import { MAX_THRESHOLD } from '../domain/notification-settings';
import type { NotificationSettingsPatch } from '../domain/settings';

/** `apiKey`: the credential, read by `presentedCredential` before the parameters (401 first). */
export const apiKeyParam = z
  .string()
  .optional()
  .openapi({ description: 'API key or access token; or send `Authorization: Bearer <token>` instead.' });

/** `productId` of the balance and history endpoints: absent, or a catalogue id as a numeric string. */
export const productIdParam = z
  .string()
  .regex(NUMERIC)
  .refine((value) => Number(value) <= MAX_ID)
  .transform(Number)
  .optional()
  .openapi({ description: 'Only this product.' });

/** Security of the customer endpoints: a Bearer credential, or `apiKey` (no scheme). */
export const customerSecurity = [{ credential: [] }, {}];
export const adminSecurity = [{ admin: [] }];
/** The 403 of every admin write (CONTRACT §7, roles): `{"code":403,"messages":"This admin token may only read."}`. */
export const ADMIN_READ_ONLY = 'A support token: this admin token may only read (X-Refusal-Reason: read_only_admin)';

export const securitySchemes = {
  credential: { type: 'http', scheme: 'bearer', description: 'Access token (or API key)' },
  admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN or an ADMIN_TOKENS entry (role support: GET only)' },
  serviceJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Service JWT signed with SERVICE_JWT_SECRET' },
};

const productRef = z.object({ id: z.number().int(), name: z.string() });

/** One product's balance, as the balance endpoint and the admin API show it. */
export const BalanceItem = z
  .object({ product_id: z.number().int(), product: productRef, credits: z.number().int() })
  .openapi('BalanceItem');

export const Balance = z.object({ data: z.array(BalanceItem) }).openapi('Balance');

export const UsageHistory = z
  .object({
    data: z.array(
      z.object({
        date: z.string().date(),
        product_id: z.number().int(),
        product: productRef,
        credits_used: z.number().int().min(1),
      }),
    ),
  })
  .openapi('UsageHistory');

export const UsageGrant = z
  .object({ accountId: z.number().int(), productId: z.number().int(), credits: z.number().int().min(0) })
  .openapi('UsageGrant');

export const ApiKey = z.object({ apiKey: z.string().regex(/^at_[A-Za-z0-9]{29}$/) }).openapi('ApiKey');

export const NotificationSettings = z
  .object({
    lowBalanceAlert: z.object({ enabled: z.boolean(), threshold: z.number().int().min(0).max(MAX_THRESHOLD) }),
    zeroBalanceAlert: z.object({ enabled: z.boolean() }),
    email: z.string().openapi({ description: "Where alert e-mails go (the account's e-mail unless set)." }),
    webhook: z
      .object({
        url: z.string(),
        enabled: z.boolean(),
        disabledReason: z.enum(['gone', 'failing']).optional().openapi({
          description:
            'Why the service disabled it: its receiver answered 410 Gone, or every delivery failed for 5 days. Setting the webhook again enables it.',
        }),
        secret: z
          .string()
          .optional()
          .openapi({ description: 'The signing secret (`whsec_…`): only in the answer that set or changed the URL.' }),
      })
      .nullable()
      .openapi({ description: 'The balance webhook (CONTRACT §6.1), or null.' }),
  })
  .openapi('NotificationSettings');

/**
 * A JSON integer member (CONTRACT §9): a safe integer, or a numeric string `^[0-9]+$`, within
 * `min`..`max`; a negative value only as a JSON number; -0 is 0.
 */
export function integerMember(min: number, max: number) {
  return z
    .union([z.number().int().safe(), z.string().regex(NUMERIC).transform(Number)])
    .pipe(z.number().min(min).max(max))
    .transform((value) => (value === 0 ? 0 : value))
    .openapi({ type: 'integer', minimum: min, maximum: max });
}

/** A required JSON integer member: `null` and `''` count as not given (CONTRACT §9), hence `required`. */
export const requiredInteger = (min: number, max: number) => absentIfEmpty(integerMember(min, max));

/** An optional JSON integer member: `null` and `''` count as not given. */
export const optionalInteger = (min: number, max: number) => absentIfEmpty(integerMember(min, max).optional());

/** An account id in a path (`/admin/v1/accounts/{id}`): a number 1..2^31-1, else the path names no account (404). */
export const accountIdPath = {
  id: z
    .string()
    .regex(NUMERIC)
    .transform(Number)
    .refine((id) => id >= 1 && id <= MAX_ID)
    .openapi({ type: 'integer', minimum: 1, maximum: MAX_ID }),
};

/** A JSON null counts as not given (CONTRACT §9). */
const flag = z.boolean().nullish();

/**
 * The body of `POST /user-service/notification-settings` (CONTRACT §6, §9): any nested subset
 * of the settings document; a null section or flag counts as not given, `threshold: null` is
 * invalid (it would unset a required setting). Output: the change it asks for.
 */
export const SettingsPatch = z
  .object({
    lowBalanceAlert: z.object({ enabled: flag, threshold: integerMember(0, MAX_THRESHOLD).optional() }).nullish(),
    zeroBalanceAlert: z.object({ enabled: flag }).nullish(),
    // Validated as the admin API's e-mails; null resets it to the account's e-mail.
    email: z.string().max(254).refine(isMailboxAddress).nullable().optional(),
    // null removes the webhook; the URL's own checks (DNS included) are the domain's.
    webhook: z.object({ url: z.string().optional(), enabled: flag }).nullable().optional(),
  })
  .transform(({ lowBalanceAlert: low, zeroBalanceAlert: zero, email, webhook }): NotificationSettingsPatch => {
    const patch: NotificationSettingsPatch = {};
    if (low?.enabled != null) patch.lowBalanceEnabled = low.enabled;
    if (low?.threshold !== undefined) patch.lowBalanceThreshold = low.threshold;
    if (zero?.enabled != null) patch.zeroBalanceEnabled = zero.enabled;
    if (email !== undefined) patch.email = email;
    if (webhook === null) patch.webhook = null;
    else if (webhook !== undefined) {
      patch.webhook = {};
      if (webhook.url !== undefined) patch.webhook.url = webhook.url;
      if (webhook.enabled != null) patch.webhook.enabled = webhook.enabled;
    }
    return patch;
  })
  .openapi({ example: { lowBalanceAlert: { threshold: 25 } } });
