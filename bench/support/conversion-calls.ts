// The conversion webhook calls an API server made, from its own /metrics: how many reviews, and
// how long it waited for them (apiserver_crd_conversion_webhook_duration_seconds), by CRD and
// versions. A bench reads it before and after a phase to say what the phase cost the webhook.
import type { RawClient } from './raw-apply';

/** ConversionCalls: per `crd from→to`, the reviews the API server sent and the seconds it waited in all. */
export type ConversionCalls = Map<string, { calls: number; seconds: number }>;

const metric = 'apiserver_crd_conversion_webhook_duration_seconds';

/** conversionCalls reads the API server's conversion webhook histogram (counts and sums, successes and failures). */
export async function conversionCalls(client: RawClient): Promise<ConversionCalls> {
  const { status, text } = await client.get('/metrics');
  if (status !== 200) throw new Error(`GET /metrics answered ${status}: ${text.slice(0, 200)}`);
  const calls: ConversionCalls = new Map();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${metric}_(count|sum)\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    const key = `${labels.crd_name ?? '?'} ${labels.from_version ?? '?'}→${labels.to_version ?? '?'}${labels.succeeded === 'false' ? ' (failed)' : ''}`;
    const entry = calls.get(key) ?? { calls: 0, seconds: 0 };
    if (match[1] === 'count') entry.calls += Number(match[3]);
    else entry.seconds += Number(match[3]);
    calls.set(key, entry);
  }
  return calls;
}

/** callsBetween: what `after` holds beyond `before`, leaving out what did not move. */
export function callsBetween(before: ConversionCalls, after: ConversionCalls): ConversionCalls {
  const moved: ConversionCalls = new Map();
  for (const [key, { calls, seconds }] of after) {
    const earlier = before.get(key) ?? { calls: 0, seconds: 0 };
    if (calls > earlier.calls) moved.set(key, { calls: calls - earlier.calls, seconds: seconds - earlier.seconds });
  }
  return moved;
}

/** totalCalls sums a phase's calls over every CRD and version pair. */
export function totalCalls(calls: ConversionCalls): { calls: number; seconds: number } {
  let total = { calls: 0, seconds: 0 };
  for (const entry of calls.values()) total = { calls: total.calls + entry.calls, seconds: total.seconds + entry.seconds };
  return total;
}
