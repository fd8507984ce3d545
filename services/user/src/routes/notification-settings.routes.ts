import { Router } from 'express';
import { checkOutputFormat, respond } from '@platform/kernel';
import { throwIfInvalid, type FieldMessages } from '@platform/wire';
import { presentedCredential } from '@platform/credentials';
import type { UserDeps } from '../deps';
import { changeNotificationSettings, parseSettingsPatch } from '../domain/notification-settings';
import type { UserStore } from '../domain/user-store';
import { publicRoute } from './route';

const PATH = '/user-service/notification-settings';

/** `GET|POST /user-service/notification-settings` (CONTRACT §6): read, or change any nested subset. */
export function notificationSettingsRoutes(deps: UserDeps, store: UserStore): Router {
  // GET reads; POST changes what its JSON body names (an empty change reads) and answers the whole document.
  const settings = publicRoute(async (req, res, params) => {
    const principal = await deps.credentials.require(presentedCredential(req, params).secret);
    const errors: FieldMessages = {};
    checkOutputFormat(res, errors);
    const patch = req.method === 'POST' ? parseSettingsPatch(params.rawBody(), errors) : {};
    throwIfInvalid(errors);
    respond(res, 200, await changeNotificationSettings(store, principal.accountId, patch));
  });
  const router = Router();
  router.get(PATH, settings);
  router.post(PATH, settings);
  return router;
}
