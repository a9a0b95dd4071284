import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { commandExists, RigError } from './process';

export interface GoProgram {
  /** The Go module's folder. */
  dir: string;
  /** Where the binary goes. */
  binary: string;
  /** A name for progress lines, e.g. 'kube-testenv'. */
  label: string;
  /** What the first build does and how long it takes, said before it starts. */
  firstBuildNote: string;
  /**
   * The package to build, when it is not the module's own folder: a folder of the module
   * ('./controllers', whose .go files then count for staleness too) or the main package of a pinned
   * upstream tool that the module names with a `tool` directive (e.g. 'sigs.k8s.io/kustomize/kustomize/v5').
   * @defaultValue '.'
   */
  package?: string;
  /** Build tags, e.g. ['sqlite', 'sqlite_unlock_notify'] for Gitea's SQLite. @defaultValue none */
  tags?: readonly string[];
  /** Build with cgo (a C compiler on PATH), as SQLite's driver needs. @defaultValue false: Go's own default */
  cgo?: boolean;
}

/**
 * buildGoProgram builds a Go program of the rig when its sources differ from those it was last
 * built from: a digest of their contents and the build settings, kept beside the binary
 * (`<binary>.sources`). A fresh checkout or a `touch` changes no digest, so it rebuilds nothing.
 * Go's build cache makes a rebuild cheap; the first build compiles large upstream modules, so it
 * reports progress. Test files run in parallel: one process builds, the others wait for its lock,
 * and the binary appears by an atomic rename, never half-written.
 */
export async function buildGoProgram(program: GoProgram, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<string> {
  const digest = await sourceDigest(program);
  if (await builtFrom(program, digest)) return program.binary;
  if (!(await commandExists('go'))) {
    throw new RigError(`Go is not installed, and ${program.label} is built from Go modules. Install Go 1.26 (scripts/setup checks it).`);
  }
  await mkdir(dirname(program.binary), { recursive: true });
  const lock = `${program.binary}.building`;
  if (!(await mkdir(lock).then(() => true, () => false))) {
    await waitForLock(lock, program.label, log);
    return buildGoProgram(program, log);
  }
  try {
    await writeFile(join(lock, 'pid'), await lockHolder(process.pid));
    await compile(program, log);
    await writeFile(`${program.binary}.sources`, `${digest}\n`);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
  return program.binary;
}

async function compile(program: GoProgram, log: (line: string) => void): Promise<void> {
  log(`${program.label}: building (${program.firstBuildNote})`);
  const started = Date.now();
  const temporary = `${program.binary}.${process.pid}`;
  await new Promise<void>((done, fail) => {
    const tags = program.tags?.length ? ['-tags', program.tags.join(' ')] : [];
    const env = program.cgo === undefined ? process.env : { ...process.env, CGO_ENABLED: program.cgo ? '1' : '0' };
    const child = spawn('go', ['build', '-v', ...tags, '-o', temporary, program.package ?? '.'], { cwd: program.dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let compiled = 0;
    let tail = '';
    const ticker = setInterval(() => log(`${program.label}: ${compiled} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`), 15_000);
    createInterface({ input: child.stderr }).on('line', (line) => {
      compiled += 1;
      tail = `${tail}\n${line}`.slice(-4000);
    });
    child.on('error', (error) => { clearInterval(ticker); fail(error); });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) done();
      else fail(new RigError(`go build of ${program.dir} failed (exit ${code}). Last output:${tail}`));
    });
  });
  await rename(temporary, program.binary);
  log(`${program.label}: built in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * lockHolder is what a lock says of its builder: its pid and, on Linux, the process's start time
 * (clock ticks since boot), so a later process that reuses the pid is not taken for the builder.
 */
export async function lockHolder(pid: number): Promise<string> {
  const started = await startTimeOf(pid);
  return started === undefined ? String(pid) : `${pid} ${started}`;
}

/** startTimeOf reads a process's start time from /proc (field 22 of its stat); undefined off Linux or when it is gone. */
async function startTimeOf(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // The command name (field 2) may hold spaces and parentheses: count from after its last ')'.
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** holderRuns: the lock's builder is still the running process of that pid (same start time, where the lock says it). */
async function holderRuns(pid: number, started: string | undefined): Promise<boolean> {
  if (!isAlive(pid)) return false;
  if (started === undefined) return true;
  const now = await startTimeOf(pid);
  return now === undefined || now === started;
}

/**
 * waitForLock waits while another process builds (the lock holds its pid), saying so every 15 s.
 * A lock whose builder is gone (killed mid-build: the lock was never removed) is removed, so the
 * next build does not wait for a process that no longer exists, nor for one that reused its pid.
 */
export async function waitForLock(lock: string, label: string, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  let told = started;
  while (await stat(lock).then(() => true, () => false)) {
    const [pidText = '', startedText] = (await readFile(join(lock, 'pid'), 'utf8').catch(() => '')).trim().split(' ');
    const holder = Number(pidText);
    // A lock without a pid yet is a build that is starting: it is given a few seconds to write one.
    if ((holder > 0 && !(await holderRuns(holder, startedText))) || (!(holder > 0) && Date.now() - started > 10_000)) {
      log(`${label}: removing ${lock}, left by a build that is no longer running`);
      await rm(lock, { recursive: true, force: true });
      return;
    }
    if (Date.now() - told >= 15_000) {
      told = Date.now();
      log(`${label}: waiting for the build of process ${holder || '(starting)'}, ${Math.round((told - started) / 1000)} s`);
    }
    if (Date.now() - started > 1_800_000) throw new RigError(`${lock} stayed for 30 minutes; remove it if no build is running.`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** builtFrom: the binary exists and was built from sources with this digest. */
async function builtFrom(program: GoProgram, digest: string): Promise<boolean> {
  if (!(await stat(program.binary).then(() => true, () => false))) return false;
  const recorded = await readFile(`${program.binary}.sources`, 'utf8').catch(() => '');
  return recorded.trim() === digest;
}

/**
 * sourceDigest is a SHA-256 of what a build reads from the repository: the .go files, go.mod and
 * go.sum of the module folder (and of a './' package folder), by name and content, and the package,
 * tags and cgo setting. Upstream modules are pinned by go.sum, so they are covered by it.
 */
export async function sourceDigest(program: GoProgram): Promise<string> {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ package: program.package ?? '.', tags: program.tags ?? [], cgo: program.cgo ?? null }));
  const folders = [program.dir];
  if (program.package?.startsWith('./')) folders.push(join(program.dir, program.package));
  for (const folder of folders) {
    const sources = (await readdir(folder)).filter((file) => file.endsWith('.go') || file === 'go.mod' || file === 'go.sum').sort();
    for (const file of sources) {
      hash.update(`\0${folder === program.dir ? '' : `${program.package}/`}${file}\0`);
      hash.update(await readFile(join(folder, file)));
    }
  }
  return hash.digest('hex');
}
