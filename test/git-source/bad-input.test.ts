// Every bad input of issue 3 point 4, pushed to a real repository: each stops only its own objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TerminalError } from '@tidemark/contracts';
import type { GitSource, PollResult } from '@tidemark/git-source';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { configMap, SourceFixture, summarise } from './source-fixture';

let server: GitServer;
let copy: WorkingCopy;
let source: GitSource;
let healthy: PollResult;
let broken: PollResult;
const fixture = new SourceFixture();

function billionLaughs(): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: laughs}', 'data:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const names = 'abcdefghi';
  for (let level = 1; level < names.length; level += 1) {
    lines.push(`  ${names[level]}: &${names[level]} [${Array(9).fill(`*${names[level - 1]}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}

async function readError(revision: string, objectKey: string): Promise<TerminalError> {
  const error = await source.readObject(revision, objectKey).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

beforeAll(async () => {
  server = await startGitServer();
  const url = await server.createRepository('bad-input');
  copy = await server.workingCopy('bad-input');
  await copy.write('good.yaml', configMap('good'));
  await copy.write('parse.yaml', `${configMap('p1')}---\n${configMap('p2')}`);
  await copy.write('identity.yaml', `${configMap('named')}---\n${configMap('unnamed')}`);
  await copy.write('link-target/linked.yaml', configMap('linked'));
  await copy.write('vendor.yaml', configMap('vendored'));
  await copy.commitAndPush('healthy');
  source = await fixture.open({ url });
  healthy = await source.poll();

  await copy.write('dup-a.yaml', configMap('dup'));
  await copy.write('dup-b.yaml', `# second\n${configMap('dup', '2')}`);
  await copy.write('dup-same.yaml', `${configMap('twice')}---\n${configMap('twice', '2')}`);
  await copy.write('parse.yaml', `${configMap('p1')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p2\n  labels: {a: [1, 2}\n`);
  await copy.write('identity.yaml', `${configMap('named')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {}\n---\nkind: Secret\nmetadata: {name: noversion}\n`);
  await copy.write('laughs.yaml', billionLaughs());
  await copy.write('deep.json', `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
  await copy.delete('link-target/linked.yaml');
  await copy.symlink('link-target/linked.yaml', '../good.yaml');
  await copy.delete('vendor.yaml');
  await copy.commit('broken');
  // A submodule entry (gitlink) where vendor.yaml was; committed without a working tree for it.
  await copy.git('update-index', '--add', '--cacheinfo', `160000,${healthy.revision},vendor.yaml`);
  await copy.git('commit', '--quiet', '--amend', '-m', 'broken, with a submodule');
  await copy.push({ force: true });
  broken = await source.poll();
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('bad input in Git', () => {
  it('reports every problem with its file, line and reason', () => {
    const found = broken.errors.map((error) => [error.code, error.path, error.line]);
    expect(found).toEqual(expect.arrayContaining([
      ['DuplicateObject', 'dup-a.yaml', 1],
      ['DuplicateObject', 'dup-same.yaml', 1],
      ['ParseFailed', 'parse.yaml', 12],
      ['MissingIdentity', 'identity.yaml', 8],
      ['MissingIdentity', 'identity.yaml', 13],
      ['LimitExceeded', 'laughs.yaml', 1],
      ['LimitExceeded', 'deep.json', 1],
      ['SymlinkRefused', 'link-target/linked.yaml', undefined],
      ['SubmoduleRefused', 'vendor.yaml', undefined],
    ]));
    expect(broken.errors).toHaveLength(9);
  });

  it('names both places of an object declared twice across files, and nothing is applied for it', async () => {
    const error = await readError(broken.revision, 'core/ConfigMap/_/dup');
    expect(error.code).toBe('DuplicateObject');
    expect(error.message).toContain('dup-a.yaml:1 and dup-b.yaml:2');
  });

  it('names both places of an object declared twice in one file', async () => {
    expect((await readError(broken.revision, 'core/ConfigMap/_/twice')).message).toContain('dup-same.yaml:1 and dup-same.yaml:8');
  });

  it('stops only the objects of a file that fails to parse, naming the file, line and reason', async () => {
    const error = await readError(broken.revision, 'core/ConfigMap/_/p1');
    expect(error.message).toMatch(/^core\/ConfigMap\/_\/p1 cannot be read: parse\.yaml:12: .*Flow/);
    expect((await source.readObject(broken.revision, 'core/ConfigMap/_/good'))?.path).toBe('good.yaml');
    expect(summarise(broken.changes)).not.toContain('removed core/ConfigMap/_/p1');
  });

  it('refuses an object without a name or apiVersion, and holds the object that lost its name', async () => {
    expect((await source.readObject(broken.revision, 'core/ConfigMap/_/named'))?.line).toBe(1);
    const error = await readError(broken.revision, 'core/ConfigMap/_/unnamed');
    expect(error.message).toContain('identity.yaml:8: metadata.name is missing from ConfigMap');
    expect(broken.errors.find((problem) => problem.line === 13)?.message).toBe('identity.yaml:13: apiVersion is missing');
  });

  it('refuses symlinks and submodules and never follows them', async () => {
    expect((await readError(broken.revision, 'core/ConfigMap/_/linked')).message).toContain('link-target/linked.yaml: is a symbolic link; symlinks are refused');
    expect((await readError(broken.revision, 'core/ConfigMap/_/vendored')).message).toContain('vendor.yaml: is a submodule');
    // The healthy revision still reads as it was.
    expect((await source.readObject(healthy.revision, 'core/ConfigMap/_/linked'))?.path).toBe('link-target/linked.yaml');
  });

  it('marks the held objects changed (so they stall) and adds only readable new objects', () => {
    expect(summarise(broken.changes)).toEqual([
      'added core/ConfigMap/_/dup',
      'added core/ConfigMap/_/twice',
      'changed core/ConfigMap/_/linked',
      'changed core/ConfigMap/_/p1',
      'changed core/ConfigMap/_/p2',
      'changed core/ConfigMap/_/unnamed',
      'changed core/ConfigMap/_/vendored',
    ]);
  });

  it('recovers when the files are fixed', async () => {
    await copy.git('rm', '--quiet', '--cached', 'vendor.yaml');
    for (const path of ['dup-b.yaml', 'laughs.yaml', 'deep.json', 'link-target/linked.yaml']) await copy.delete(path);
    await copy.write('parse.yaml', `${configMap('p1')}---\n${configMap('p2')}`);
    await copy.write('dup-same.yaml', configMap('twice'));
    const fixed = await copy.commitAndPush('fixed');
    const result = await source.poll();
    expect(result.revision).toBe(fixed);
    expect(result.errors.map((error) => error.path)).toEqual(['identity.yaml', 'identity.yaml']);
    expect((await source.readObject(fixed, 'core/ConfigMap/_/p1'))?.object.metadata.name).toBe('p1');
    expect(await source.readObject(fixed, 'core/ConfigMap/_/linked')).toBeUndefined();
  });
});
