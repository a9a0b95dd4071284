// Issue 3 point 9: GitSource.poll on a 10,000-object repository against the native git CLI
// doing the same work (`git fetch` + `git diff --name-only`) on the same repository, same run.
// The same repository is also polled over SSH (a loopback OpenSSH sshd through git-shell, an
// ed25519 deploy key), beside the HTTP figures.
// Run: npx tsx bench/git-poll.bench.ts [rounds]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { run, startSshGitServer, type SshGitServer, type WorkingCopy } from '@tidemark/testing';
import { median, openBenchRepository, timed } from './support/git-bench-repository';

const rounds = Number(process.argv[2] ?? 10);
const folders = 10;
const filesPerFolder = 10;
const objectsPerFile = 100;

function fileText(file: number, changed?: string): string {
  const documents: string[] = [];
  for (let index = 0; index < objectsPerFile; index += 1) {
    const value = changed !== undefined && index === 0 ? changed : `${file}-${index}`;
    documents.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${file}-${index}\n  namespace: ns-${file % folders}\ndata:\n  value: "${value}"\n`);
  }
  return documents.join('---\n');
}

const pathOf = (file: number) => `folder-${file % folders}/file-${file}.yaml`;

async function generate(copy: WorkingCopy): Promise<void> {
  await Promise.all(Array.from({ length: folders * filesPerFolder }, (_, file) => copy.write(pathOf(file), fileText(file))));
}

/** Native does what a poll does with the git CLI: fetch the branch, then name the changed files. */
class Native {
  private head = '';
  /** `sshCommand` (git's core.sshCommand) is the OpenSSH client command of an SSH URL. */
  constructor(private readonly dir: string, private readonly url: string, private readonly sshCommand?: string) {}

  async init(): Promise<void> {
    await run('git', ['init', '--quiet', '--bare', this.dir]);
    await this.poll();
  }

  async poll(): Promise<string[]> {
    const ssh = this.sshCommand ? ['-c', `core.sshCommand=${this.sshCommand}`] : [];
    await run('git', ['-C', this.dir, ...ssh, 'fetch', '--quiet', this.url, '+refs/heads/main:refs/heads/main']);
    const head = (await run('git', ['-C', this.dir, 'rev-parse', 'refs/heads/main'])).trim();
    const names = this.head ? (await run('git', ['-C', this.dir, 'diff', '--name-only', this.head, head])).split('\n').filter(Boolean) : [];
    this.head = head;
    return names;
  }
}

/** openSshSource is a GitSource on the same bare repository, reached over SSH with a deploy key. */
async function openSshSource(ssh: SshGitServer, path: string): Promise<{ source: GitSource; cacheDir: string; native: Native }> {
  const key = await ssh.generateKey('ed25519');
  await ssh.authorize(key);
  const sshCommand = `ssh -i ${key.path} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=${join(ssh.root, 'known_hosts')}`;
  const spec = parseSourceSpec({ name: 'bench-ssh', url: ssh.urlFor(path), ref: { branch: 'main' }, intervalMs: 60_000, auth: { sshPrivateKey: key.privateKey, knownHosts: ssh.knownHosts } }, 'bench-ssh');
  const cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-bench-ssh-'));
  const source = new GitSource({ spec, cacheDir });
  await source.open();
  return { source, cacheDir, native: new Native(join(cacheDir, 'native'), ssh.urlFor(path), sshCommand) };
}

const repository = await openBenchRepository('bench', generate);
const ssh = await startSshGitServer();
try {
  const { url, copy, source, scratch } = repository;
  const initial = await timed(() => source.poll());
  if (initial.value.changes.length !== folders * filesPerFolder * objectsPerFile) throw new Error(`expected 10,000 objects, got ${initial.value.changes.length}`);
  const native = new Native(join(scratch, 'native'), url);
  const nativeInitial = await timed(() => native.init());
  const overSsh = await openSshSource(ssh, repository.path);
  const sshInitial = await timed(() => overSsh.source.poll());
  if (sshInitial.value.changes.length !== initial.value.changes.length) throw new Error(`SSH saw ${sshInitial.value.changes.length} objects`);
  await overSsh.native.init();

  const samples = { noop: { tidemark: [] as number[], native: [] as number[], ssh: [] as number[], nativeSsh: [] as number[] }, change: { tidemark: [] as number[], native: [] as number[], ssh: [] as number[], nativeSsh: [] as number[] } };
  for (let round = 0; round < rounds; round += 1) {
    const idle = await timed(() => source.poll());
    if (idle.value.moved || idle.value.fetchedObjects !== 0) throw new Error('a no-op poll fetched objects');
    samples.noop.tidemark.push(idle.ms);
    samples.noop.native.push((await timed(() => native.poll())).ms);
    const sshIdle = await timed(() => overSsh.source.poll());
    if (sshIdle.value.moved || sshIdle.value.fetchedObjects !== 0) throw new Error('a no-op poll over SSH fetched objects');
    samples.noop.ssh.push(sshIdle.ms);
    samples.noop.nativeSsh.push((await timed(() => overSsh.native.poll())).ms);

    const file = round % (folders * filesPerFolder);
    await copy.write(pathOf(file), fileText(file, `round-${round}`));
    await copy.commitAndPush(`round ${round}`);
    const changed = await timed(() => source.poll());
    if (changed.value.changes.length !== 1) throw new Error(`expected one change, got ${changed.value.changes.length}`);
    samples.change.tidemark.push(changed.ms);
    const names = await timed(() => native.poll());
    if (names.value.length !== 1) throw new Error(`git diff named ${names.value.length} files`);
    samples.change.native.push(names.ms);
    const sshChanged = await timed(() => overSsh.source.poll());
    if (sshChanged.value.changes.length !== 1) throw new Error(`expected one change over SSH, got ${sshChanged.value.changes.length}`);
    samples.change.ssh.push(sshChanged.ms);
    samples.change.nativeSsh.push((await timed(() => overSsh.native.poll())).ms);
  }
  await overSsh.source.close();
  await rm(overSsh.cacheDir, { recursive: true, force: true });

  const figures = {
    bench: 'git-poll',
    objects: folders * filesPerFolder * objectsPerFile,
    rounds,
    initialMs: { tidemark: Math.round(initial.ms), native: Math.round(nativeInitial.ms), tidemarkSsh: Math.round(sshInitial.ms) },
    noopPollMs: { tidemark: +median(samples.noop.tidemark).toFixed(1), native: +median(samples.noop.native).toFixed(1), tidemarkSsh: +median(samples.noop.ssh).toFixed(1), nativeSsh: +median(samples.noop.nativeSsh).toFixed(1) },
    oneFileChangePollMs: { tidemark: +median(samples.change.tidemark).toFixed(1), native: +median(samples.change.native).toFixed(1), tidemarkSsh: +median(samples.change.ssh).toFixed(1), nativeSsh: +median(samples.change.nativeSsh).toFixed(1) },
    ratio: {
      noop: +(median(samples.noop.tidemark) / median(samples.noop.native)).toFixed(2),
      oneFileChange: +(median(samples.change.tidemark) / median(samples.change.native)).toFixed(2),
    },
  };
  console.log(`git-poll on ${figures.objects} objects, median of ${rounds} rounds (ratio = tidemark / native git; below 1 is faster)`);
  console.log(`  initial poll        tidemark ${figures.initialMs.tidemark} ms   native clone ${figures.initialMs.native} ms (not compared: tidemark also parses every object)`);
  console.log(`  no-op poll          tidemark ${figures.noopPollMs.tidemark} ms   native ${figures.noopPollMs.native} ms   ratio ${figures.ratio.noop}`);
  console.log(`  one-file-change     tidemark ${figures.oneFileChangePollMs.tidemark} ms   native ${figures.oneFileChangePollMs.native} ms   ratio ${figures.ratio.oneFileChange}`);
  console.log(`  over SSH: no-op     tidemark ${figures.noopPollMs.tidemarkSsh} ms   native ${figures.noopPollMs.nativeSsh} ms (initial poll ${figures.initialMs.tidemarkSsh} ms)`);
  console.log(`  over SSH: one-file  tidemark ${figures.oneFileChangePollMs.tidemarkSsh} ms   native ${figures.oneFileChangePollMs.nativeSsh} ms (the HTTP figures above are plain HTTP on loopback)`);
  console.log(JSON.stringify(figures));
} finally {
  await ssh.stop();
  await repository.stop();
}
