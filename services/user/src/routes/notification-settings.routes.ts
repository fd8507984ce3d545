import { Router } from 'express';
import { declareRoute, mountRoute, publicEdge, respond } from '@platform/kernel';
import { presentedCredential } from '@platform/credentials';
import type { UserDeps } from '../deps';
import { changeNotificationSettings } from '../domain/notification-settings';
import type { UserStore } from '../domain/user-store';
import { apiKeyParam, customerSecurity, NotificationSettings, SettingsPatch } from './schemas';

const PATH = '/user-service/notification-settings';
const settingsAnswer = { description: 'Notification settings', body: NotificationSettings };

/** `GET /user-service/notification-settings` (CONTRACT §6): read. */
export const readSettingsRoute = declareRoute({
  cors: true,
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
  methods: ['post'],
  paths: [PATH],
  edge: publicEdge,
  summary: 'Change notification settings',
  description: 'Any nested subset of the document; members not named keep their value.',
  security: customerSecurity,
  params: { apiKey: apiKeyParam },
  document: SettingsPatch,
  body: { content: { 'application/json': NotificationSettings } },
  responses: { 200: settingsAnswer, 401: 'Missing or bad credential', 422: 'Bad value' },
});

export function notificationSettingsRoutes(deps: UserDeps, store: UserStore): Router {
  const router = Router();
  mountRoute(router, readSettingsRoute, async (req, res, request) => {
    const principal = await deps.accountCredentials.require(presentedCredential(req, request.params).secret);
    request.input();
    respond(res, 200, await changeNotificationSettings(store, principal.accountId, {}));
  });
  // A POST changes what its JSON body names (an empty change reads) and answers the whole document.
  mountRoute(router, changeSettingsRoute, async (req, res, request) => {
    const principal = await deps.accountCredentials.require(presentedCredential(req, request.params).secret);
    const { document: patch } = request.input();
    respond(res, 200, await changeNotificationSettings(store, principal.accountId, patch));
  });
  return router;
}
