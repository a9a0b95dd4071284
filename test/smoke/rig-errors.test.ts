// Bad input to the rig gets a message that names the fix, not a stack trace.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeTestenvBinary, run, startRedis } from '@tidemark/testing';

describe('rig errors', () => {
  it('names the fix when the API server port is already in use', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-port-'));
    try {
      await expect(run(kubeTestenvBinary, ['serve', '--dir', dir, '--port', String(port)]))
        .rejects.toThrow(new RegExp(`port ${port} on 127.0.0.1 is already in use; stop what holds it or pass --port 0`));
    } finally {
      holder.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the install command when redis-server is missing', async () => {
    const path = process.env.PATH;
    const url = process.env.REDIS_URL;
    process.env.PATH = '/nonexistent';
    delete process.env.REDIS_URL;
    try {
      await expect(startRedis()).rejects.toThrow(/redis-server is not installed\. Run `apt-get install -y redis-server`/);
    } finally {
      process.env.PATH = path;
      if (url) process.env.REDIS_URL = url;
    }
  });
});
