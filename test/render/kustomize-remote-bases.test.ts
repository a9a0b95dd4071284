// Issue 37 item 4: Kustomize remote bases. An overlay in one repository of the rig's Git server
// names a base in a second repository by URL; Tidemark fetches it with its own Git client (the
// operator's host list, the source's limits and, on the source's own origin only, its
// credentials), writes it beside the unit and rewrites the entry, so kustomize builds without a
// network. The output equals `kustomize build` of the same overlay on a local copy of the base.
// Hostile entries: a host not listed (also the same server spelled `localhost`), an oversized base,
// a base behind a redirect to another origin, and one base spelled several ways (fetched once).
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitSource, parseSourceSpec, type PollResult } from '@tidemark/git-source';
import { run, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { kustomizeBuild, objectsOf, renderTools, rendering, type Tools } from './render-fixture';

const credentials = { username: 'bot', password: `pw-${randomBytes(6).toString('hex')}` };
let server: GitServer;
let redirector: Server;
let redirectHost: string;
const redirectorAuthorization: Array<string | undefined> = [];
let apps: WorkingCopy;
let bases: WorkingCopy;
let basesUrl: string;
let tools: Tools;
let work: string;
let source: GitSource;
let poll: PollResult;

const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${value}"\n`;
const overlay = (prefix: string, entry: string) => `namePrefix: ${prefix}-\nresources:\n  - ${entry}\n`;
const errorAt = (folder: string) => poll.errors.find((error) => error.path === `${folder}/`);

beforeAll(async () => {
  tools = await renderTools();
  work = await mkdtemp(join(tmpdir(), 'tidemark-remote-bases-'));
  server = await startGitServer({ basicAuth: credentials });
  basesUrl = await server.createRepository('bases');
  const appsUrl = await server.createRepository('apps');
  bases = await server.workingCopy('bases');
  apps = await server.workingCopy('apps');

  // The second repository: a base at tag v1.0.0 and then a change on main; an oversized base at tag big.
  await bases.write('deploy/base/settings.yaml', configMap('settings', 'v1'));
  await bases.write('deploy/base/kustomization.yaml', 'resources:\n  - settings.yaml\n  - ../common\n');
  await bases.write('deploy/common/kustomization.yaml', 'resources:\n  - shared.yaml\n');
  await bases.write('deploy/common/shared.yaml', configMap('shared', 'common'));
  // A remote base that names a remote base itself (the same repository, at the same tag).
  await bases.write('deploy/wrapped/kustomization.yaml', `namePrefix: wrapped-\nresources:\n  - ${basesUrl}//deploy/base?ref=v1.0.0\n`);
  await bases.commitAndPush('base v1');
  await bases.git('tag', '-a', 'v1.0.0', '-m', 'v1.0.0');
  await bases.git('push', '--quiet', 'origin', 'v1.0.0');
  await bases.write('deploy/base/settings.yaml', configMap('settings', 'main'));
  await bases.commitAndPush('base on main');
  await bases.git('checkout', '--quiet', '-b', 'oversized');
  await bases.write('deploy/big/blob.yaml', configMap('big', randomBytes(3 * 1024 * 1024).toString('base64')));
  await bases.write('deploy/big/kustomization.yaml', 'resources:\n  - blob.yaml\n');
  await bases.commit('oversized');
  await bases.git('tag', 'big');
  await bases.git('checkout', '--quiet', 'main');
  await bases.git('push', '--quiet', 'origin', 'refs/tags/big');

  // Another origin (another port) that redirects every request to the Git server.
  redirector = createServer((request, response) => {
    redirectorAuthorization.push(request.headers.authorization);
    response.writeHead(302, { Location: `${server.baseUrl}${request.url ?? '/'}` }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectHost = `127.0.0.1:${(redirector.address() as { port: number }).port}`;

  const gitHost = new URL(basesUrl).host;
  await apps.write('overlays/pinned/kustomization.yaml', overlay('pinned', `${basesUrl}//deploy/base?ref=v1.0.0`));
  await apps.write('overlays/twice/kustomization.yaml', overlay('twice', `git::${basesUrl.replace('http://', 'HTTP://')}/deploy/base/?ref=v1.0.0`));
  await apps.write('overlays/nested/kustomization.yaml', overlay('nested', `${basesUrl}//deploy/wrapped?ref=v1.0.0`));
  await apps.write('overlays/unpinned/kustomization.yaml', overlay('unpinned', `${basesUrl}//deploy/base`));
  await apps.write('overlays/elsewhere/kustomization.yaml', overlay('elsewhere', 'https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v5.0.0'));
  await apps.write('overlays/localhost/kustomization.yaml', overlay('localhost', `${basesUrl.replace('127.0.0.1', 'localhost')}//deploy/base?ref=v1.0.0`));
  await apps.write('overlays/ssh/kustomization.yaml', overlay('ssh', `git@${gitHost.split(':')[0]}:bases.git//deploy/base?ref=v1.0.0`));
  await apps.write('overlays/big/kustomization.yaml', overlay('big', `${basesUrl}//deploy/big?ref=big`));
  await apps.write('overlays/redirected/kustomization.yaml', overlay('redirected', `http://${redirectHost}/bases.git//deploy/base?ref=v1.0.0`));
  await apps.commitAndPush('overlays with remote bases');

  const spec = parseSourceSpec({ name: 'apps', url: appsUrl, ref: { branch: 'main' }, intervalMs: 60_000, auth: credentials, limits: { maxObjectMiB: 1 } }, 'test');
  source = new GitSource({ spec, cacheDir: join(work, 'cache'), rendering: { ...rendering(tools), remoteBaseHosts: [gitHost, redirectHost] } });
  await source.open();
  poll = await source.poll();
}, 300_000);

afterAll(async () => {
  await source?.close();
  await new Promise<void>((resolve) => (redirector ? redirector.close(() => resolve()) : resolve()));
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('Kustomize remote bases', () => {
  it('renders an overlay on a base pinned by tag in a second repository, as kustomize build renders it locally', async () => {
    expect(errorAt('overlays/pinned')).toBeUndefined();
    const local = join(work, 'local');
    await run('git', ['clone', '--quiet', '--branch', 'v1.0.0', basesUrl.replace('http://', `http://${credentials.username}:${credentials.password}@`), join(local, 'bases')]);
    await mkdir(join(local, 'overlay'));
    await writeFile(join(local, 'overlay', 'kustomization.yaml'), overlay('pinned', '../bases/deploy/base'));
    const expected = objectsOf(await kustomizeBuild(tools, join(local, 'overlay')));
    expect([...expected.keys()].sort()).toEqual(['core/ConfigMap/_/pinned-settings', 'core/ConfigMap/_/pinned-shared']);
    for (const [key, object] of expected) expect((await source.readObject(poll.revision, key))?.object).toEqual(object);
    // The tag, not main: the base's later commit is not what the pinned overlay renders.
    expect((await source.readObject(poll.revision, 'core/ConfigMap/_/pinned-settings'))?.object).toMatchObject({ data: { value: 'v1' } });
  });

  it('fetches one base spelled several ways (scheme case, git::, .git/ against //, a trailing slash) once', async () => {
    expect(errorAt('overlays/twice')).toBeUndefined();
    expect((await source.readObject(poll.revision, 'core/ConfigMap/_/twice-settings'))?.object).toMatchObject({ data: { value: 'v1' } });
    // One bare cache for the bases repository however it is spelled; the other is the redirecting origin's, which got nothing.
    const cacheOf = (repository: string) => createHash('sha256').update(repository).digest('hex').slice(0, 24);
    expect((await readdir(join(work, 'cache.remote-bases'))).sort()).toEqual([cacheOf(basesUrl), cacheOf(`http://${redirectHost}/bases.git`)].sort());
  });

  it('follows a remote base that names a remote base itself', async () => {
    expect(errorAt('overlays/nested')).toBeUndefined();
    expect((await source.readObject(poll.revision, 'core/ConfigMap/_/nested-wrapped-settings'))?.object).toMatchObject({ data: { value: 'v1' } });
  });

  it('renders an unpinned base from the default branch, with a warning that says to pin it', async () => {
    expect(errorAt('overlays/unpinned')).toBeUndefined();
    expect((await source.readObject(poll.revision, 'core/ConfigMap/_/unpinned-settings'))?.object).toMatchObject({ data: { value: 'main' } });
    const warning = poll.warnings?.find((entry) => entry.path === 'overlays/unpinned/');
    expect(warning?.message).toMatch(/overlays\/unpinned\/kustomization\.yaml: resources entry ".*bases\.git\/\/deploy\/base" names no ref and follows the repository's default branch, .*pin it with \?ref=<tag or commit>/);
  });

  it('refuses a host the operator did not list, including the same server spelled localhost, naming file and entry', () => {
    expect(errorAt('overlays/elsewhere')).toMatchObject({
      code: 'RemoteBaseRefused',
      message: expect.stringMatching(/remote base "https:\/\/github\.com\/kubernetes-sigs\/kustomize\/\/examples\/helloWorld\?ref=v5\.0\.0" is on host github\.com, which is not in render\.remoteBases\.hosts/),
    });
    expect(errorAt('overlays/localhost')).toMatchObject({ code: 'RemoteBaseRefused', message: expect.stringMatching(/is on host localhost:\d+, which is not in render\.remoteBases\.hosts/) });
    expect(errorAt('overlays/ssh')).toMatchObject({ code: 'RemoteBaseRefused', message: expect.stringMatching(/overlays\/ssh\/kustomization\.yaml: resources entry "git@127\.0\.0\.1:bases\.git.*" is an SSH remote base; Tidemark fetches remote bases over https only/) });
  });

  it('refuses an oversized base within the source\'s own size limits, and a redirect to another origin, sending no credential there', () => {
    expect(errorAt('overlays/big')).toMatchObject({ code: 'RemoteBaseFailed', message: expect.stringMatching(/remote base ".*\/\/deploy\/big\?ref=big" could not be fetched: .*a blob of [\d.]+ MiB was pushed, more than the limit of 1\.0 MiB per object/) });
    expect(errorAt('overlays/redirected')).toMatchObject({ code: 'RemoteBaseFailed', message: expect.stringMatching(/could not be fetched: .*the server answered HTTP 302 to another origin/) });
    expect(JSON.stringify(poll.errors)).not.toContain(credentials.password);
    // The redirecting origin is not the source's: it was asked, and got no credential.
    expect(redirectorAuthorization.length).toBeGreaterThan(0);
    expect(redirectorAuthorization.every((header) => header === undefined)).toBe(true);
  });

  it('re-renders a changed overlay from the cached commit of its pinned base, fetching nothing again', async () => {
    const packs = join(work, 'cache.remote-bases', createHash('sha256').update(basesUrl).digest('hex').slice(0, 24), 'objects', 'pack');
    const before = (await readdir(packs)).length;
    await apps.write('overlays/pinned/kustomization.yaml', `${overlay('pinned', `${basesUrl}//deploy/base?ref=v1.0.0`)}commonLabels:\n  changed: "yes"\n`);
    await apps.commitAndPush('pinned: a label');
    const next = await source.poll();
    expect(next.errors.find((error) => error.path === 'overlays/pinned/')).toBeUndefined();
    expect((await source.readObject(next.revision, 'core/ConfigMap/_/pinned-settings'))?.object).toMatchObject({ metadata: { labels: { changed: 'yes' } }, data: { value: 'v1' } });
    expect((await readdir(packs)).length).toBe(before);
  });

  it('fails only the units whose remote base failed', async () => {
    const failed = poll.errors.map((error) => error.path).sort();
    expect(failed).toEqual(['overlays/big/', 'overlays/elsewhere/', 'overlays/localhost/', 'overlays/redirected/', 'overlays/ssh/']);
  });
});
