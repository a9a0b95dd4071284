import { createHmac } from 'node:crypto';

/** signatureHeader is the generic webhook's signature header, as Flux's generic-hmac provider names it. */
export const signatureHeader = 'X-Signature';

/** signBody returns `sha256=<hex>`: the HMAC-SHA256 of the raw body under the provider's key. */
export function signBody(body: string, key: string): string {
  return `sha256=${createHmac('sha256', key).update(body, 'utf8').digest('hex')}`;
}
