import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockHolder, waitForLock } from './go-build';

let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('waitForLock', () => {
  it('removes a build lock whose builder is gone, instead of waiting 30 minutes for it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'go-build-lock-'));
    const lock = join(dir, 'kube-controllers.building');
    await mkdir(lock);
    // The pid of a process that has exited.
    const gone = spawnSync('true').pid;
    await writeFile(join(lock, 'pid'), String(gone));
    const lines: string[] = [];
    await waitForLock(lock, 'kube-controllers', (line) => lines.push(line));
    expect(await stat(lock).then(() => true, () => false)).toBe(false);
    expect(lines).toEqual([`kube-controllers: removing ${lock}, left by a build that is no longer running`]);
  });

  it('removes a lock whose pid now belongs to another process (started after the builder)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'go-build-lock-'));
    const lock = join(dir, 'kube-controllers.building');
    await mkdir(lock);
    // This process, running, but with a start time that is not its own: the pid was reused.
    const [pid, started] = (await lockHolder(process.pid)).split(' ');
    expect(started).toMatch(/^\d+$/);
    await writeFile(join(lock, 'pid'), `${pid} ${Number(started) + 1}`);
    const lines: string[] = [];
    await waitForLock(lock, 'kube-controllers', (line) => lines.push(line));
    expect(await stat(lock).then(() => true, () => false)).toBe(false);
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
