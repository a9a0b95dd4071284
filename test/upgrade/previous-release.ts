// The previous release, built from its own sources: `git archive` of main at 53f8326 (the last
// commit before Redis schema versions and WebApp v1beta1), bundled with that commit's own
// scripts/build.mjs and esbuild. Its @tidemark/* libraries are its own; npm packages resolve to
// this checkout's node_modules (the lockfiles agree on every package both use).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const previousReleaseCommit = '53f8326';
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${command} ${args.join(' ')} in ${cwd}: ${stderr.trim()}`))));
  });
}

/**
 * buildPreviousRelease returns the path of the previous release's reconciler bundle (built once per
 * checkout: its npm packages are links into this checkout's node_modules, which a build made from
 * another, since removed, worktree would leave dangling). The dashboard's bundle lies beside it.
 * `commit` builds another commit the same way (a commit id, not a branch: the build is kept by name).
 */
export async function buildPreviousRelease(commit = previousReleaseCommit): Promise<string> {
  const checkout = createHash('sha256').update(repoRoot).digest('hex').slice(0, 8);
  const dir = join(tmpdir(), `tidemark-release-${commit}-${checkout}`);
  const bundle = join(dir, 'out', 'reconciler', 'main.js');
  // esbuild writes the bundle before build.mjs checks its externals, so the bundle alone does not
  // prove a build passed: a stamp written after it does.
  const built = join(dir, 'out', '.built');
  if (existsSync(built)) return bundle;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await run('sh', ['-c', `git -C "${repoRoot}" archive --format=tar ${commit} | tar -x -C "${dir}"`], dir).catch((error: unknown) => {
    throw new Error(`cannot read commit ${commit} from this clone; a shallow clone lacks it: ${String(error)}`);
  });
  await linkNodeModules(dir);
  await run(process.execPath, ['scripts/build.mjs', '--outdir', 'out'], dir);
  await writeFile(built, `${commit}\n`);
  return bundle;
}

/** linkNodeModules gives the archive this checkout's npm packages and its own workspace libraries. */
async function linkNodeModules(dir: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, '@tidemark'), { recursive: true });
  for (const entry of await readdir(join(repoRoot, 'node_modules'))) {
    if (entry === '@tidemark' || entry.startsWith('.')) continue;
    // The packages build.mjs bundles (client-node) are copied, not linked: esbuild follows a link to
    // its real path, outside the archive, where build.mjs no longer sees the copies such a package
    // nests in its own node_modules (client-node's js-yaml) and fails on the top level's dev copy.
    if (entry === '@kubernetes') await cp(join(repoRoot, 'node_modules', entry), join(modules, entry), { recursive: true, verbatimSymlinks: true });
    else await symlink(join(repoRoot, 'node_modules', entry), join(modules, entry));
  }
  for (const name of await readdir(join(dir, 'libs'))) {
    await symlink(join(dir, 'libs', name), join(modules, '@tidemark', name));
  }
  // A workspace's own packages (the CLI's commander) live in its node_modules, not at the top.
  for (const workspace of ['apps', 'libs']) {
    for (const name of await readdir(join(dir, workspace))) {
      const own = join(repoRoot, workspace, name, 'node_modules');
      if (existsSync(own) && !existsSync(join(dir, workspace, name, 'node_modules'))) await symlink(own, join(dir, workspace, name, 'node_modules'));
    }
  }
}
