import { addressProblem, credentialOrigin, revealCredential, type Credential } from './credential';
import { DeliveryError } from './errors/delivery-error';
import type { NotificationProvider } from './notify-options';
import { signatureHeader, signBody } from './sign-body';
import { messageOf } from '@tidemark/contracts';

/** maxPayloadBytes bounds every body sent; payloads are built from bounded fields well under it. */
export const maxPayloadBytes = 16 * 1024;

/**
 * deliver POSTs one JSON body to a provider, signed when it has an HMAC key, within its timeout.
 * Redirects are not followed (a webhook URL that moves is a configuration to fix, and following
 * it could carry the body elsewhere). The response body is never read.
 */
export async function deliver(provider: NotificationProvider, body: string): Promise<void> {
  if (Buffer.byteLength(body) > maxPayloadBytes) throw new DeliveryError(`provider ${provider.name}: the payload is larger than ${maxPayloadBytes} bytes`, false);
  const address = await credential(provider, 'address', provider.address);
  const problem = addressProblem(address);
  if (problem) throw new DeliveryError(`provider ${provider.name}: the address from ${credentialOrigin(provider.address)} ${problem} (the value is not shown)`, false);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'tidemark-notify' };
  if (provider.hmacKey) headers[signatureHeader] = signBody(body, await credential(provider, 'HMAC key', provider.hmacKey));
  let response: Response;
  try {
    response = await fetch(address, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(provider.timeoutMs) });
  } catch (error) {
    throw new DeliveryError(`provider ${provider.name}: ${requestFailure(error, provider.timeoutMs)}`, true);
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return;
  const status = response.status;
  const retry = status === 408 || status === 429 || status >= 500;
  throw new DeliveryError(`provider ${provider.name} answered HTTP ${status}`, retry, retryAfterMs(response.headers.get('retry-after')));
}

/** credential reads one of the provider's credentials; a Secret that cannot be read now may be readable at the next attempt. */
async function credential(provider: NotificationProvider, what: string, from: Credential): Promise<string> {
  try {
    const value = await revealCredential(from);
    if (value) return value;
  } catch (error) {
    throw new DeliveryError(`provider ${provider.name}: the ${what} could not be read from ${credentialOrigin(from)}: ${messageOf(error)}`, true);
  }
  throw new DeliveryError(`provider ${provider.name}: the ${what} from ${credentialOrigin(from)} is empty`, true);
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
