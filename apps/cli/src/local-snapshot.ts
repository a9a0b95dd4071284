import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CliError, ExitCode } from './cli-error';
import { messageOf } from '@tidemark/contracts';

const run = promisify(execFile);

/** LocalSnapshot is a commit of the working tree (or a ref) in a bare repository of its own, for GitSource to read. */
export interface LocalSnapshot {
  gitdir: string;
  revision: string;
  /** What was snapshotted, for the report: `working tree of <dir>` or the ref. */
  label: string;
  remove(): Promise<void>;
}

/**
 * snapshotLocal copies what `diff` compares into a fresh bare repository: a ref's commit (pushed
 * from the user's repository), or the working tree as it is, tracked and untracked files alike
 * (.gitignore honoured), committed through a private index. The user's repository, index and
 * refs are never written.
 */
export async function snapshotLocal(directory: string, ref: string | undefined, env: Readonly<Record<string, string | undefined>>): Promise<LocalSnapshot> {
  const root = await git(['-C', resolve(directory), 'rev-parse', '--show-toplevel'], env).catch((error: unknown) => {
    throw new CliError('NotARepository', `${directory} is not inside a Git working tree: ${gitFailureOf(error)}`, ExitCode.Usage);
  });
  const gitdir = await mkdtemp(join(tmpdir(), 'tidemark-diff-'));
  const remove = () => rm(gitdir, { recursive: true, force: true });
  try {
    await git(['init', '--quiet', '--bare', gitdir], env);
    if (ref !== undefined) {
      const revision = await git(['-C', root, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], env).catch(() => {
        throw new CliError('RefNotFound', `${ref} is not a branch, tag or commit of the repository at ${root}`, ExitCode.Usage);
      });
      await git(['-C', root, 'push', '--quiet', gitdir, `${revision}:refs/heads/snapshot`], env);
      return { gitdir, revision, label: ref, remove };
    }
    const inSnapshot = { ...env, GIT_DIR: gitdir, GIT_WORK_TREE: root, GIT_INDEX_FILE: join(gitdir, 'snapshot-index') };
    await git(['add', '--all', '.'], inSnapshot, root);
    const tree = await git(['write-tree'], inSnapshot, root);
    const author = { GIT_AUTHOR_NAME: 'tidemark diff', GIT_AUTHOR_EMAIL: 'diff@tidemark.invalid', GIT_COMMITTER_NAME: 'tidemark diff', GIT_COMMITTER_EMAIL: 'diff@tidemark.invalid' };
    const revision = await git(['commit-tree', tree, '-m', 'working tree'], { ...inSnapshot, ...author }, root);
    return { gitdir, revision, label: `working tree of ${root}`, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

async function git(args: string[], env: Readonly<Record<string, string | undefined>>, cwd?: string): Promise<string> {
  const clean = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const { stdout } = await run('git', args, { env: clean, maxBuffer: 16 * 1024 * 1024, ...(cwd ? { cwd } : {}) });
  return stdout.trim();
}

/** gitFailureOf is the first line git wrote to stderr, or the error's message. */
function gitFailureOf(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr;
  return (stderr || messageOf(error)).trim().split('\n')[0] ?? '';
}
