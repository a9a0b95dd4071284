// A renderer added by configuration, like an Argo CD Config Management Plugin: a command that
// prints objects, registered beside the built-ins with no code change, run in the same sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitSource, PollResult } from '@tidemark/git-source';
import { builtinRenderers, commandRenderer, RendererRegistry, UnitRenderer } from '@tidemark/render';
import { startGitServer, type GitServer } from '@tidemark/testing';
import { SourceFixture } from '../git-source/source-fixture';
import { renderTools } from './render-fixture';

let server: GitServer;
let source: GitSource;
let poll: PollResult;
const fixture = new SourceFixture();

beforeAll(async () => {
  const tools = await renderTools();
  server = await startGitServer();
  const url = await server.createRepository('plugin');
  const copy = await server.workingCopy('plugin');
  await copy.write('generated/objects.list', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-a-plugin\ndata:\n  home: "$HOME"\n');
  await copy.write('generated/ignored.yaml', 'not: an object of its own\n');
  await copy.write('failing/objects.list', '');
  await copy.write('failing/tidemark-plugin-fails', '');
  await copy.commitAndPush('a plugin unit');
  const registry = new RendererRegistry([
    ...builtinRenderers,
    commandRenderer({ name: 'fails', markers: ['tidemark-plugin-fails'], command: ['/bin/sh', '-c', 'echo "line 7: no such template" >&2; exit 3'] }),
    commandRenderer({ name: 'cat', markers: ['objects.list'], command: ['/bin/cat', 'objects.list'] }),
  ]);
  const renderer = new UnitRenderer({ registry, tools: { kustomize: tools.kustomize, helm: tools.helm, sops: tools.sops } });
  source = await fixture.open({ url }, { rendering: { renderer } });
  poll = await source.poll();
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('a command renderer from configuration', () => {
  it('renders its units, and the files in them are not plain manifests', async () => {
    expect(poll.changes.map((change) => `${change.change} ${change.objectKey} ${change.path}`)).toEqual(['added core/ConfigMap/_/from-a-plugin generated/']);
    const found = await source.readObject(poll.revision, 'core/ConfigMap/_/from-a-plugin');
    expect(found?.unit).toEqual({ renderer: 'cat', folder: 'generated' });
  });

  it('fails a unit with the command\'s own message and line', () => {
    expect(poll.errors.map((error) => [error.code, error.path, error.line])).toEqual([['RenderFailed', 'failing/', 7]]);
    expect(poll.errors[0]?.message).toContain('fails failing failed: line 7: no such template');
  });

  it('stops a renderer past its output or time limit, and only that unit', async () => {
    const copy = await server.workingCopy('plugin');
    await copy.write('endless/endless-output', '');
    await copy.write('slow/sleeps', '');
    await copy.commitAndPush('runaway units');
    const registry = new RendererRegistry([
      commandRenderer({ name: 'yes', markers: ['endless-output'], command: ['/usr/bin/yes', 'kind: ConfigMap'] }),
      commandRenderer({ name: 'sleep', markers: ['sleeps'], command: ['/bin/sleep', '60'] }),
      commandRenderer({ name: 'cat', markers: ['objects.list'], command: ['/bin/cat', 'objects.list'] }),
    ]);
    const renderer = new UnitRenderer({ registry, tools: { kustomize: '/nonexistent', helm: '/nonexistent', sops: '/nonexistent' }, limits: { timeoutMs: 2_000, maxOutputBytes: 64 * 1024 } });
    const bounded = await fixture.open({ url: await copy.git('remote', 'get-url', 'origin') }, { rendering: { renderer } });
    const result = await bounded.poll();
    const codes = new Map(result.errors.map((error) => [error.path, error.code]));
    expect(codes.get('endless/')).toBe('RenderOutputTooLarge');
    expect(codes.get('slow/')).toBe('RenderTimedOut');
    expect(await bounded.readObject(result.revision, 'core/ConfigMap/_/from-a-plugin')).toBeDefined();
  });

  it('refuses a command that is not an absolute path', () => {
    expect(() => commandRenderer({ name: 'x', markers: ['m'], command: ['jsonnet'] })).toThrow('command must start with an absolute path');
  });
});
