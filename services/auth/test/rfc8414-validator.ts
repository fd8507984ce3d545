/**
 * The checks of Authlib's `AuthorizationServerMetadata.validate()` (authlib/oauth2/rfc8414/models.py,
 * 1.x), rule for rule, so that the metadata is held to what a real Python client checks without
 * Python in CI. Each rule names the RFC 8414 §2 member it reads. Returns the first failure's message
 * (as Authlib raises the first ValueError), or undefined when the document passes.
 */
type Metadata = Record<string, unknown>;

const secure = (url: unknown): boolean => typeof url === 'string' && url.toLowerCase().startsWith('https://');
const isValidUrl = (value: unknown): boolean => typeof value === 'string' && URL.canParse(value);
/** Python truthiness for a JSON value: missing, null, '', [] and {} are false. */
const truthy = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== '' && value !== false && value !== 0 && !(Array.isArray(value) && value.length === 0);

const array = (metadata: Metadata, key: string): string | undefined =>
  metadata[key] !== undefined && metadata[key] !== null && !Array.isArray(metadata[key]) ? `"${key}" MUST be JSON array` : undefined;

const withDefault = (metadata: Metadata, key: string, fallback: string[]): unknown[] =>
  Array.isArray(metadata[key]) ? (metadata[key] as unknown[]) : metadata[key] === undefined ? fallback : [];

const algValues = (metadata: Metadata, key: string, methodsKey: string): string | undefined => {
  const value = metadata[key];
  if (truthy(value) && !Array.isArray(value)) return `"${key}" MUST be JSON array`;
  const methods = withDefault(metadata, methodsKey, ['client_secret_basic']);
  if (methods.some((method) => method === 'private_key_jwt' || method === 'client_secret_jwt') && !truthy(value))
    return `"${key}" is required`;
  if (Array.isArray(value) && value.includes('none')) return `the value "none" MUST NOT be used in "${key}"`;
  return undefined;
};

const secureIfSet = (metadata: Metadata, key: string): string | undefined =>
  truthy(metadata[key]) && !secure(metadata[key]) ? `"${key}" MUST use "https" scheme` : undefined;
const urlIfSet = (metadata: Metadata, key: string): string | undefined =>
  truthy(metadata[key]) && !isValidUrl(metadata[key]) ? `"${key}" MUST be a URL` : undefined;

/** In Authlib's REGISTRY_KEYS order: validate() calls `validate_<key>` for each, in this order. */
const rules: Array<(metadata: Metadata) => string | undefined> = [
  (m) => {
    if (!truthy(m.issuer)) return '"issuer" is required';
    if (!secure(m.issuer)) return '"issuer" MUST use "https" scheme';
    const parsed = new URL(m.issuer as string);
    return parsed.search !== '' || parsed.hash !== '' ? '"issuer" has no query or fragment' : undefined;
  },
  (m) => {
    if (truthy(m.authorization_endpoint)) return secureIfSet(m, 'authorization_endpoint');
    const grants = withDefault(m, 'grant_types_supported', ['authorization_code', 'implicit']);
    return grants.some((grant) => grant === 'authorization_code' || grant === 'implicit')
      ? '"authorization_endpoint" is required'
      : undefined;
  },
  (m) => {
    const grants = m.grant_types_supported;
    if (Array.isArray(grants) && grants.length === 1 && grants[0] === 'implicit') return undefined;
    if (!truthy(m.token_endpoint)) return '"token_endpoint" is required';
    return secureIfSet(m, 'token_endpoint');
  },
  (m) => secureIfSet(m, 'jwks_uri'),
  (m) => secureIfSet(m, 'registration_endpoint'),
  (m) => array(m, 'scopes_supported'),
  (m) => {
    if (!truthy(m.response_types_supported)) return '"response_types_supported" is required';
    return Array.isArray(m.response_types_supported) ? undefined : '"response_types_supported" MUST be JSON array';
  },
  (m) => array(m, 'response_modes_supported'),
  (m) => array(m, 'grant_types_supported'),
  (m) => array(m, 'token_endpoint_auth_methods_supported'),
  (m) => algValues(m, 'token_endpoint_auth_signing_alg_values_supported', 'token_endpoint_auth_methods_supported'),
  (m) => urlIfSet(m, 'service_documentation'),
  (m) => array(m, 'ui_locales_supported'),
  (m) => urlIfSet(m, 'op_policy_uri'),
  (m) => urlIfSet(m, 'op_tos_uri'),
  (m) => secureIfSet(m, 'revocation_endpoint'),
  (m) => array(m, 'revocation_endpoint_auth_methods_supported'),
  (m) => algValues(m, 'revocation_endpoint_auth_signing_alg_values_supported', 'revocation_endpoint_auth_methods_supported'),
  (m) => secureIfSet(m, 'introspection_endpoint'),
  (m) => array(m, 'introspection_endpoint_auth_methods_supported'),
  (m) => algValues(m, 'introspection_endpoint_auth_signing_alg_values_supported', 'introspection_endpoint_auth_methods_supported'),
  (m) => array(m, 'code_challenge_methods_supported'),
];

export function authlibMetadataError(metadata: Metadata): string | undefined {
  for (const rule of rules) {
    const failure = rule(metadata);
    if (failure !== undefined) return failure;
  }
  return undefined;
}
