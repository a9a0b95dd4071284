import { DeliveryError } from './errors/delivery-error';
import type { NotificationProvider } from './notify-options';
import { signatureHeader, signBody } from './sign-body';

/** maxPayloadBytes bounds every body sent; payloads are built from bounded fields well under it. */
export const maxPayloadBytes = 16 * 1024;

/**
 * deliver POSTs one JSON body to a provider, signed when it has an HMAC key, within its timeout.
 * Redirects are not followed (a webhook URL that moves is a configuration to fix, and following
 * it could carry the body elsewhere). The response body is never read.
 */
export async function deliver(provider: NotificationProvider, body: string): Promise<void> {
  if (Buffer.byteLength(body) > maxPayloadBytes) throw new DeliveryError(`provider ${provider.name}: the payload is larger than ${maxPayloadBytes} bytes`, false);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'tidemark-notify' };
  if (provider.hmacKey) headers[signatureHeader] = signBody(body, provider.hmacKey.reveal());
  let response: Response;
  try {
    response = await fetch(provider.address.reveal(), { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(provider.timeoutMs) });
  } catch (error) {
    throw new DeliveryError(`provider ${provider.name}: ${requestFailure(error, provider.timeoutMs)}`, true);
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return;
  const status = response.status;
  const retry = status === 408 || status === 429 || status >= 500;
  throw new DeliveryError(`provider ${provider.name} answered HTTP ${status}`, retry, retryAfterMs(response.headers.get('retry-after')));
}

/** requestFailure says why a request got no answer without quoting the error, which may hold the URL. */
function requestFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? `the request failed (${code})` : 'the request failed';
}

/** retryAfterMs reads a Retry-After header in seconds (dates are ignored), bounded to an hour. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header || !/^\d{1,6}$/.test(header.trim())) return undefined;
  return Math.min(Number(header.trim()) * 1000, 3_600_000);
}
