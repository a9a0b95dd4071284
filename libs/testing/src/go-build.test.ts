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
