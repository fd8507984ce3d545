import {
  AppError,
  invalidMessage,
  NUMERIC,
  requiredMessage,
  throwIfInvalid,
  type FieldMessages,
  type Params,
  type ParamValue,
} from '@platform/wire';

/** Token lifetimes a client may ask for, in seconds (seed §8). */
export const TOKEN_LIFETIMES: readonly number[] = [1800, 3600, 7200, 10800];
export const DEFAULT_TOKEN_LIFETIME = 3600;

/** The seed's flow: JSON (or form/query) `grantType`, `expiresIn`. */
export interface SeedTokenRequest {
  expiresIn: number;
}

/** RFC 6749 §4.4 client-credentials flow. */
export interface ClientCredentialsRequest {
  expiresIn: number;
}

/** A lifetime from a JSON number or a numeric string; undefined when it is not one of the four values. */
function readLifetime(value: ParamValue): number | undefined {
  if (value.kind === 'absent') return DEFAULT_TOKEN_LIFETIME;
  if (value.kind === 'invalid' || !NUMERIC.test(value.value)) return undefined;
  const seconds = Number(value.value);
  return TOKEN_LIFETIMES.includes(seconds) ? seconds : undefined;
}

/**
 * Validates the seed's token request, reporting every bad field together (422), the request's
 * `outputFormat` included when the HTTP kernel refused it.
 */
export function readSeedTokenRequest(params: Params, outputFormatRefused: boolean): SeedTokenRequest {
  const errors: FieldMessages = {};
  const grantType = params.get('grantType');
  if (grantType.kind === 'absent') errors.grantType = [requiredMessage('grantType')];
  else if (grantType.kind === 'invalid' || grantType.value !== 'access_token') errors.grantType = [invalidMessage('grantType')];

  const expiresIn = readLifetime(params.get('expiresIn'));
  if (expiresIn === undefined) errors.expiresIn = [invalidMessage('expiresIn')];

  if (outputFormatRefused) errors.outputFormat = [invalidMessage('outputFormat')];
  throwIfInvalid(errors);
  return { expiresIn: expiresIn ?? DEFAULT_TOKEN_LIFETIME };
}

/**
 * Validates an RFC 6749 client-credentials request: an unknown grant type is
 * unsupported_grant_type, anything else malformed is invalid_request.
 */
export function readClientCredentialsRequest(params: Params): ClientCredentialsRequest {
  const grantType = params.get('grant_type');
  if (grantType.kind === 'absent') throw new AppError('invalid_params', { fields: { grant_type: [requiredMessage('grant_type')] } });
  if (grantType.kind === 'invalid') throw new AppError('invalid_params', { fields: { grant_type: [invalidMessage('grant_type')] } });
  if (grantType.value !== 'client_credentials') throw new AppError('unsupported_grant_type');
  const expiresIn = readLifetime(params.get('expires_in'));
  if (expiresIn === undefined) throw new AppError('invalid_params', { fields: { expires_in: [invalidMessage('expires_in')] } });
  return { expiresIn };
}
