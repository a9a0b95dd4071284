// A real HTTP chart repository on loopback for the render suites: charts packaged with the pinned
// `helm package`, indexed with `helm repo index`, served by a node http server with basic auth
// that counts every request it answers.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { run } from '@tidemark/testing';

export interface ServedRequest {
  path: string;
  /** Whether the request carried the right credentials. */
  authorized: boolean;
  status: number;
}

export interface ChartRepositoryServer {
  /** The folder served: archives and index.yaml. */
  dir: string;
  /** A repository URL; every first path segment serves the same folder, so one server can be several repositories. */
  url(name: string): string;
  requests: ServedRequest[];
  /** package runs the pinned `helm package` on a chart folder into the served folder. */
  package(chartDir: string): Promise<string>;
  /** index runs `helm repo index` on the served folder (relative archive URLs). */
  index(): Promise<void>;
  stop(): Promise<void>;
}

/** startChartRepository serves a fresh folder; requests need `username`/`password` by basic auth. */
export async function startChartRepository(helm: string, credentials: { username: string; password: string }): Promise<ChartRepositoryServer> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-chart-repo-'));
  const home = await mkdtemp(join(tmpdir(), 'tidemark-helm-home-'));
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const requests: ServedRequest[] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const authorized = request.headers.authorization === expected;
    const answer = (status: number): void => {
      requests.push({ path, authorized, status });
      response.statusCode = status;
    };
    if (!authorized) {
      answer(401);
      response.setHeader('www-authenticate', 'Basic realm="charts"');
      response.end('unauthorized');
      return;
    }
    const file = join(dir, basename(path));
    void stat(file).then((info) => {
      answer(200);
      response.setHeader('content-length', info.size);
      createReadStream(file).pipe(response);
    }, () => {
      answer(404);
      response.end('not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const helmEnv = { env: { HOME: home, PATH: process.env.PATH ?? '' } };
  return {
    dir,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    requests,
    package: async (chartDir) => /Successfully packaged chart and saved it to: (\S+)/.exec(await run(helm, ['package', chartDir, '--destination', dir], helmEnv))?.[1] ?? '',
    index: async () => {
      await run(helm, ['repo', 'index', dir], helmEnv);
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([rm(dir, { recursive: true, force: true }), rm(home, { recursive: true, force: true })]);
    },
  };
}
