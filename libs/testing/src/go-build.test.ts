import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildGoProgram, lockHolder, sourceDigest, waitForLock, type GoProgram } from './go-build';

let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** removedLock writes a lock naming `holder` (what a builder writes), waits on it, and says whether it went and what was logged. */
async function removedLock(holder: string): Promise<{ gone: boolean; lines: string[]; lock: string }> {
  dir = await mkdtemp(join(tmpdir(), 'go-build-lock-'));
  const lock = join(dir, 'kube-controllers.building');
  await mkdir(lock);
  await writeFile(join(lock, 'pid'), holder);
  const lines: string[] = [];
  await waitForLock(lock, 'kube-controllers', (line) => lines.push(line));
  return { gone: !(await stat(lock).then(() => true, () => false)), lines, lock };
}

describe('waitForLock', () => {
  it('removes a build lock whose builder is gone, instead of waiting 30 minutes for it', async () => {
    // The pid of a process that has exited.
    const { gone, lines, lock } = await removedLock(String(spawnSync('true').pid));
    expect(gone).toBe(true);
    expect(lines).toEqual([`kube-controllers: removing ${lock}, left by a build that is no longer running`]);
  });

  it('removes a lock whose pid now belongs to another process (started after the builder)', async () => {
    // This process, running, but with a start time that is not its own: the pid was reused.
    const [pid, started] = (await lockHolder(process.pid)).split(' ');
    expect(started).toMatch(/^\d+$/);
    const { gone, lines, lock } = await removedLock(`${pid} ${Number(started) + 1}`);
    expect(gone).toBe(true);
    expect(lines).toEqual([`kube-controllers: removing ${lock}, left by a build that is no longer running`]);
  });

  it('waits while the builder runs, and returns once its lock is gone', async () => {
    dir = await mkdtemp(join(tmpdir(), 'go-build-lock-'));
    const lock = join(dir, 'kube-testenv.building');
    await mkdir(lock);
    await writeFile(join(lock, 'pid'), await lockHolder(process.pid));
    let returned = false;
    const waiting = waitForLock(lock, 'kube-testenv', () => undefined).then(() => (returned = true));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(returned).toBe(false);
    await rm(lock, { recursive: true, force: true });
    await waiting;
    expect(returned).toBe(true);
  });
});

describe('staleness by content', () => {
  /** aModule writes a small Go module with a binary built from it (any bytes: nothing runs it). */
  async function aModule(): Promise<GoProgram> {
    dir = await mkdtemp(join(tmpdir(), 'go-build-digest-'));
    await mkdir(join(dir, 'controllers'));
    await writeFile(join(dir, 'go.mod'), 'module example.test/rig\n\ngo 1.26\n');
    await writeFile(join(dir, 'main.go'), 'package main\n\nfunc main() {}\n');
    await writeFile(join(dir, 'controllers', 'run.go'), 'package main\n');
    await writeFile(join(dir, 'README.md'), 'not a source\n');
    return { dir, binary: join(dir, 'bin', 'rig'), label: 'rig', firstBuildNote: 'never built here', package: './controllers' };
  }

  it('changes with a source, a package-folder source, the tags or cgo, and not with a touch or a non-source file', async () => {
    const program = await aModule();
    const first = await sourceDigest(program);
    await utimes(join(dir, 'main.go'), new Date(), new Date(Date.now() + 60_000));
    await writeFile(join(dir, 'README.md'), 'edited\n');
    expect(await sourceDigest(program)).toBe(first);
    expect(await sourceDigest({ ...program, tags: ['sqlite'] })).not.toBe(first);
    expect(await sourceDigest({ ...program, cgo: true })).not.toBe(first);
    await writeFile(join(dir, 'controllers', 'run.go'), 'package main // edited\n');
    const second = await sourceDigest(program);
    expect(second).not.toBe(first);
    await writeFile(join(dir, 'main.go'), 'package main\n\nfunc main() { println() }\n');
    expect(await sourceDigest(program)).not.toBe(second);
  });

  it('keeps a binary whose recorded digest matches even when its sources are newer, and builds one whose digest differs', async () => {
    const program = await aModule();
    await mkdir(join(dir, 'bin'));
    await writeFile(program.binary, 'built');
    await utimes(program.binary, new Date(0), new Date(0));
    await writeFile(`${program.binary}.sources`, `${await sourceDigest(program)}\n`);
    const lines: string[] = [];
    expect(await buildGoProgram(program, (line) => lines.push(line))).toBe(program.binary);
    expect(lines).toEqual([]);
    await writeFile(`${program.binary}.sources`, 'an older digest\n');
    // Stale now: it sets out to build (and this module is not buildable on purpose: no main in ./controllers' imports).
    await buildGoProgram(program, (line) => lines.push(line)).catch(() => undefined);
    expect(lines[0]).toBe('rig: building (never built here)');
  }, 60_000);
});
