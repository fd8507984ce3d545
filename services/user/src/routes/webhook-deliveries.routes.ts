import { declareRoute, mountRoute, publicEdge, respond, routeGroup } from '@platform/kernel';
import { presentedCredential, type CredentialVerifier } from '@platform/credentials';
import { z } from 'zod';
import { LISTED_ATTEMPTS, type WebhookAttemptView, type WebhookStore } from '../domain/webhooks';
import { apiKeyParam, customerSecurity } from './schemas';

/** One delivery attempt as the customer's list and the operator's account view show it. */
export const WebhookAttempt = z
  .object({
    id: z.string().openapi({ description: '`webhook-id`: the same for every attempt of one event' }),
    type: z.string(),
    attemptedAt: z.string(),
    status: z.number().int().nullable().openapi({ description: "The receiver's status code, or null" }),
    error: z.string().nullable().openapi({ description: 'Why no status came (timeout, address not allowed, …), or null' }),
    nextRetryAt: z.string().nullable().openapi({ description: 'When the next attempt is due; null: none (delivered or given up)' }),
  })
  .openapi('WebhookAttempt');

const WebhookDeliveries = z.object({ data: z.array(WebhookAttempt) }).openapi('WebhookDeliveries');

export function webhookAttemptView(attempt: WebhookAttemptView): z.output<typeof WebhookAttempt> {
  return {
    id: attempt.id,
    type: attempt.type,
    attemptedAt: attempt.attemptedAt.toISOString(),
    status: attempt.status,
    error: attempt.error,
    nextRetryAt: attempt.nextRetryAt?.toISOString() ?? null,
  };
}

/** `GET /user-service/webhook-deliveries` (CONTRACT §6.1): the account's last 50 attempts, newest first. */
export const webhookDeliveriesRoute = declareRoute({
  cors: true,
  methods: ['get'],
  paths: ['/user-service/webhook-deliveries'],
  edge: publicEdge,
  accountData: true,
  summary: 'Webhook deliveries',
  description: `The last ${LISTED_ATTEMPTS} delivery attempts of the account's balance webhooks, newest first.`,
  security: customerSecurity,
  params: { apiKey: apiKeyParam },
  responses: {
    200: { description: 'Attempts (Cache-Control: no-store)', body: WebhookDeliveries },
    401: 'Missing or bad credential',
    422: 'Bad outputFormat',
  },
});

export const webhookDeliveriesRoutes = routeGroup<{ accountCredentials: CredentialVerifier; webhooks: WebhookStore }>({
  routes: [webhookDeliveriesRoute],
  mount: (router, { accountCredentials, webhooks }) =>
    mountRoute(router, webhookDeliveriesRoute, async (req, res, request) => {
      const principal = await accountCredentials.require(presentedCredential(req, request.params));
      request.input();
      const attempts = await webhooks.listAttempts(principal.accountId, LISTED_ATTEMPTS);
      respond(res, 200, { data: attempts.map(webhookAttemptView) });
    }),
});
