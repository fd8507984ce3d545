import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import type { Request, Response } from 'express';
import { AppError, invalidMessage, requiredMessage, type FieldMessages, type Params } from '@platform/wire';
import { checkOutputFormat } from '@platform/kernel';
import { isApiKeyShape, isWellFormedToken, missingCredential, presentedCredential } from '@platform/credentials';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * The lookup target in ASCII (IDNA), lower case, without a trailing dot; an IP address as
 * given. Undefined for anything that is neither a registrable-looking name nor an IP.
 */
export function normalizeDomainName(value: string): string | undefined {
  const trimmed = value.trim();
  if (isIP(trimmed) !== 0) return trimmed;
  const withoutDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  if (withoutDot === '' || withoutDot.length > 253 || /[\s/@:?#\\]/.test(withoutDot)) return undefined;
  const ascii = domainToASCII(withoutDot);
  if (ascii === '' || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  return TOP_LEVEL.test(labels[labels.length - 1] ?? '') ? ascii : undefined;
}

/** A product request after the contract's checks, before the debit. */
export interface LookupRequest {
  credential: string;
  domainName: string;
}

/**
 * Reads a product request in the contract's order (§2): the credential (401 when absent or
 * not shaped like a key or token — no round trip for those), then the parameters (422): the
 * kernel's outputFormat decision and `domainName`.
 */
export function readLookupRequest(req: Request, res: Response, params: Params): LookupRequest {
  const { secret, presented } = presentedCredential(req, params);
  if (!presented) throw missingCredential();
  if (secret === undefined || !(isApiKeyShape(secret) || isWellFormedToken(secret))) throw new AppError('unauthenticated');

  const errors: FieldMessages = {};
  checkOutputFormat(res, errors);
  const raw = params.get('domainName');
  let domainName: string | undefined;
  if (raw.kind === 'absent') errors.domainName = [requiredMessage('domainName')];
  else if (raw.kind === 'invalid' || (domainName = normalizeDomainName(raw.value)) === undefined)
    errors.domainName = [invalidMessage('domainName')];
  if (Object.keys(errors).length > 0 || domainName === undefined) throw new AppError('invalid_params', { fields: errors });
  return { credential: secret, domainName };
}
