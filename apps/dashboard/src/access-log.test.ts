import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AccessLogController } from './access-log';

/** logged runs requests on an app with the access log and returns the log lines at info and above. */
async function logged(urls: readonly string[]): Promise<Array<Record<string, unknown>>> {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
  const app = Fastify({ logger: { level: 'info', stream }, logController: new AccessLogController() });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/objects', async () => 'page');
  app.get('/assets/app.js', async () => { throw Object.assign(new Error('broken'), { statusCode: 500 }); });
  for (const url of urls) await app.inject({ url });
  await app.close();
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('AccessLogController', () => {
  it('logs one line per page request with method, URL, status and time', async () => {
    const lines = await logged(['/objects?kind=WebApp', '/objects']);
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request completed', method: 'GET', url: '/objects?kind=WebApp', statusCode: 200, responseTimeMs: expect.any(Number) }),
      expect.objectContaining({ msg: 'request completed', method: 'GET', url: '/objects', statusCode: 200 }),
    ]);
  });

  it('keeps successful probes and assets out of the info log, but not their failures or unknown paths', async () => {
    const lines = await logged(['/healthz', '/assets/app.js', '/nowhere']);
    const completed = lines.filter((line) => line.msg === 'request completed' || line.msg === 'request errored');
    expect(completed.map((line) => [line.url, line.statusCode])).toEqual([['/assets/app.js', 500], ['/nowhere', 404]]);
  });
});
