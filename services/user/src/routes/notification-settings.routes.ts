import { declareRoute, mountRoute, publicEdge, respond, routeGroup } from '@platform/kernel';
import { presentedCredential, type CredentialVerifier, type FailureLimit } from '@platform/credentials';
import { AppError } from '@platform/wire';
import { z } from 'zod';
import { changeNotificationSettings, type TargetCheck } from '../domain/notification-settings';
import type { UserStore } from '../domain/user-store';
import { sendTestWebhook, type WebhookSender, type WebhookStore } from '../domain/webhooks';
import { noStore } from './account-session.routes';
import { apiKeyParam, customerSecurity, NotificationSettings, SettingsPatch } from './schemas';

const PATH = '/user-service/notification-settings';
const settingsAnswer = { description: 'Notification settings', body: NotificationSettings };

/** `GET /user-service/notification-settings` (CONTRACT §6): read. */
export const readSettingsRoute = declareRoute({
  cors: true,
  accountData: true,
  methods: ['get'],
  paths: [PATH],
  edge: publicEdge,
  summary: 'Read notification settings',
  security: customerSecurity,
  params: { apiKey: apiKeyParam },
  responses: { 200: settingsAnswer, 401: 'Missing or bad credential', 422: 'Bad outputFormat' },
});

/** `POST /user-service/notification-settings` (CONTRACT §6): change any nested subset of the JSON document. */
export const changeSettingsRoute = declareRoute({
  cors: true,
  accountData: true,
  methods: ['post'],
  paths: [PATH],
  edge: publicEdge,
  summary: 'Change notification settings',
  description: 'Any nested subset of the document; members not named keep their value.',
  security: customerSecurity,
  params: { apiKey: apiKeyParam },
  document: SettingsPatch,
  responses: { 200: settingsAnswer, 401: 'Missing or bad credential', 422: 'Bad value' },
});

/** `POST /user-service/notification-settings/webhook-test` (CONTRACT §6.1): a `webhook.test` event at once. */
export const webhookTestRoute = declareRoute({
  cors: true,
  methods: ['post'],
  paths: [`${PATH}/webhook-test`],
  edge: publicEdge,
  summary: 'Send a test webhook',
  description: "Sends a signed `webhook.test` event to the account's webhook at once (not retried) and answers with the delivery.",
  security: customerSecurity,
  params: { apiKey: apiKeyParam },
  responses: {
    200: {
      description:
        'The delivery: `delivered` for a 2xx within 10 s; `status` the receiver answered, or `error`, coarse: `address not allowed`, `timeout`, `tls failed` or `connection failed`',
      body: z
        .object({
          id: z.string(),
          type: z.literal('webhook.test'),
          delivered: z.boolean(),
          status: z.number().int().nullable(),
          error: z.string().nullable(),
        })
        .openapi('WebhookTestDelivery'),
    },
    401: 'Missing or bad credential',
    422: 'No webhook set',
    429: 'More than 5 test sends a minute for this account (Retry-After)',
  },
});

export interface NotificationSettingsRouteUses {
  accountCredentials: CredentialVerifier;
  store: Pick<UserStore, 'readNotificationSettings' | 'accounts'>;
  webhooks: WebhookStore;
  /** Whether a webhook URL may be set, and the signed, SSRF-safe sender of test events (CONTRACT §6.1). */
  webhookTargets: { allowed: TargetCheck; send: WebhookSender };
  /** Test sends per account (WEBHOOK_TESTS_PER_MINUTE). */
  webhookTests: FailureLimit;
}

export const notificationSettingsRoutes = routeGroup<NotificationSettingsRouteUses>({
  routes: [readSettingsRoute, changeSettingsRoute, webhookTestRoute],
  mount(router, { accountCredentials, store, webhooks, webhookTargets, webhookTests }) {
    mountRoute(router, readSettingsRoute, async (req, res, request) => {
      const principal = await accountCredentials.require(presentedCredential(req, request.params));
      request.input();
      respond(res, 200, await changeNotificationSettings(store, principal.accountId, {}, webhookTargets.allowed));
    });
    // A POST changes what its JSON body names (an empty change reads) and answers the whole document.
    mountRoute(router, changeSettingsRoute, async (req, res, request) => {
      const principal = await accountCredentials.require(presentedCredential(req, request.params));
      const { document: patch } = request.input();
      respond(res, 200, await changeNotificationSettings(store, principal.accountId, patch, webhookTargets.allowed));
    });
    // Not declared accountData: its answer is a delivery, not stored data; no cache keeps it all the same.
    mountRoute(router, webhookTestRoute, async (req, res, request) => {
      noStore(res);
      const principal = await accountCredentials.require(presentedCredential(req, request.params));
      request.input();
      // Per account, every send counted (WEBHOOK_TESTS_PER_MINUTE): over it, 429 with Retry-After.
      const blockedForMs = await webhookTests.recordFailure(String(principal.accountId));
      if (blockedForMs !== undefined)
        throw new AppError('rate_limited', { retryAfterSeconds: Math.max(1, Math.ceil(blockedForMs / 1000)) });
      respond(res, 200, await sendTestWebhook({ store: webhooks, send: webhookTargets.send }, principal.accountId));
    });
  },
});
