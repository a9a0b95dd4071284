import { createHmac } from 'node:crypto';

/**
 * sendGithubPush delivers a push webhook the way GitHub signs it (X-Hub-Signature-256, an
 * HMAC-SHA256 of the raw body) and returns the HTTP status. Tests and benches use it to announce
 * a `git push` to the reconciler.
 */
export async function sendGithubPush(url: string, secret: string, payload: Record<string, unknown> = { ref: 'refs/heads/main' }): Promise<number> {
  const body = JSON.stringify(payload);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  await response.body?.cancel();
  return response.status;
}
