/**
 * DeliveryError is a notification a receiver did not take. `retry` says whether another attempt
 * may succeed (a timeout, 429, 5xx) or not (another 4xx, a redirect). The message names the
 * provider and the HTTP status, never the address: a webhook URL is a credential.
 */
export class DeliveryError extends Error {
  readonly code = 'NotificationNotDelivered';
  constructor(message: string, readonly retry: boolean, readonly retryAfterMs?: number) {
    super(message);
    this.name = 'DeliveryError';
  }
}
