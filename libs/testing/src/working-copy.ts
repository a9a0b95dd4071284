import { mkdtemp, mkdir, rm, writeFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run } from './process';

/** WorkingCopy is a real git clone that tests write, commit and `git push` from. */
export class WorkingCopy {
  private constructor(readonly dir: string) {}

  /** clone makes a working copy; `sshCommand` (git's core.sshCommand) is used for an SSH remote, then and at every push. */
  static async clone(remoteUrl: string, options: { sshCommand?: string } = {}): Promise<WorkingCopy> {
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-wc-'));
    const ssh = options.sshCommand ? ['-c', `core.sshCommand=${options.sshCommand}`] : [];
    await run('git', [...ssh, 'clone', '--quiet', remoteUrl, dir]);
    const copy = new WorkingCopy(dir);
    if (options.sshCommand) await copy.git('config', 'core.sshCommand', options.sshCommand);
    await copy.git('config', 'user.name', 'Tidemark Test');
    await copy.git('config', 'user.email', 'test@tidemark.invalid');
    await copy.git('checkout', '--quiet', '-B', 'main');
    return copy;
  }

  /** git runs a git command in the working copy and returns its trimmed stdout. */
  async git(...args: string[]): Promise<string> {
    return (await run('git', ['-C', this.dir, ...args])).trim();
  }

  async write(path: string, content: string): Promise<void> {
    const file = join(this.dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }

  async symlink(path: string, target: string): Promise<void> {
    const file = join(this.dir, path);
    await mkdir(dirname(file), { recursive: true });
    await symlink(target, file);
  }

  async delete(path: string): Promise<void> {
    await rm(join(this.dir, path), { recursive: true, force: true });
  }

  /** commit stages everything and commits; it returns the new commit id. */
  async commit(message: string, options: { amend?: boolean } = {}): Promise<string> {
    await this.git('add', '--all');
    await this.git('commit', '--quiet', '--allow-empty', '-m', message, ...(options.amend ? ['--amend'] : []));
    return this.git('rev-parse', 'HEAD');
  }

  /** push sends the branch (default main) to origin, optionally with --force. */
  async push(options: { branch?: string; force?: boolean } = {}): Promise<void> {
    const branch = options.branch ?? 'main';
    await this.git('push', '--quiet', ...(options.force ? ['--force'] : []), 'origin', `HEAD:refs/heads/${branch}`);
  }

  async commitAndPush(message: string): Promise<string> {
    const commit = await this.commit(message);
    await this.push();
    return commit;
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
