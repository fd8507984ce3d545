import { outputFormatRefused, publicEdge, respond } from '@platform/kernel';
import { readSeedTokenRequest } from '../../domain/token-request';
import { seedCredential } from '../authorization';
import type { TokenGrant } from './token-grant';

/**
 * The seed's grant (CONTRACT §4.1): `grantType=access_token` with an optional `expiresIn`, the
 * API key as `Authorization: Bearer <base64(apiKey)>`, code/messages errors, JSON or XML.
 */
export const accessTokenGrant: TokenGrant = {
  name: 'seed',
  edge: publicEdge,
  credential: (_req, authorization) => seedCredential(authorization),
  // A refused outputFormat is reported with the other fields (CONTRACT §2).
  lifetime: (params, res) => readSeedTokenRequest(params, outputFormatRefused(res)).expiresIn,
  answer(res, issued) {
    respond(res, 200, { accessToken: issued.accessToken, expiresIn: issued.expiresIn });
  },
};
