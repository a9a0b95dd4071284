// A real HTTP receiver for notifications on loopback: it records every request per path, checks
// the X-Signature HMAC of the webhook path, and answers with the statuses a test queues up.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as sent. */
  raw: string;
  body: Record<string, unknown>;
  /** For paths with a key: whether X-Signature was sha256=<HMAC of the raw body>. */
  signed?: boolean;
  answered: number;
}

export interface Receiver {
  url(path: string): string;
  received(path: string): ReceivedRequest[];
  all(): ReceivedRequest[];
  /** answerNext queues statuses for the next requests to a path (then 200 again). */
  answerNext(path: string, ...statuses: number[]): void;
  stop(): Promise<void>;
}

/** startReceiver listens on 127.0.0.1; `keys` maps a path to the HMAC key it verifies (401 when wrong). */
export async function startReceiver(keys: Record<string, string>): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const queued = new Map<string, number[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      const key = keys[path];
      const signed = key === undefined ? undefined : verify(raw, request.headers['x-signature'], key);
      const answered = signed === false ? 401 : queued.get(path)?.shift() ?? 200;
      requests.push({ path, headers: request.headers, raw, body: JSON.parse(raw) as Record<string, unknown>, ...(signed === undefined ? {} : { signed }), answered });
      response.writeHead(answered, { 'content-type': 'text/plain' }).end(answered < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: (path) => requests.filter((entry) => entry.path === path),
    all: () => [...requests],
    answerNext: (path, ...statuses) => queued.set(path, [...(queued.get(path) ?? []), ...statuses]),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function verify(raw: string, header: string | string[] | undefined, key: string): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', key).update(raw, 'utf8').digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
