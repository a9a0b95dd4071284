import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCliConfig } from './config';

describe('loadCliConfig', () => {
  it('prefers --server, then the environment, then the file, then the local default', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-config-'));
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify({ server: 'https://tidemark.example/', token: 'from-the-file-0123456789' }));
    expect(loadCliConfig({ TIDEMARK_CONFIG: path })).toEqual({ server: 'https://tidemark.example', token: 'from-the-file-0123456789', tokenFrom: path });
    expect(loadCliConfig({ TIDEMARK_CONFIG: path, TIDEMARK_SERVER: 'http://10.0.0.1:8080', TIDEMARK_TOKEN: 'env-token' })).toMatchObject({ server: 'http://10.0.0.1:8080', token: 'env-token', tokenFrom: 'TIDEMARK_TOKEN' });
    expect(loadCliConfig({ TIDEMARK_CONFIG: path }, { server: 'http://127.0.0.1:9000' }).server).toBe('http://127.0.0.1:9000');
    expect(loadCliConfig({ HOME: dir })).toEqual({ server: 'http://127.0.0.1:8080' });
  });

  it('refuses a server with credentials or another scheme, and a file with unknown fields', async () => {
    expect(() => loadCliConfig({ TIDEMARK_SERVER: 'http://user:secret@host' })).toThrow(/must not carry credentials/);
    expect(() => loadCliConfig({ TIDEMARK_SERVER: 'file:///etc/passwd' })).toThrow(/must be http:\/\/ or https:\/\//);
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-config-'));
    const path = join(dir, 'config.json');
    await writeFile(path, '{"server": 5}');
    expect(() => loadCliConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: field "server" must be a non-empty string`);
    expect(() => loadCliConfig({ TIDEMARK_CONFIG: join(dir, 'missing.json') })).toThrow(/cannot read the config file/);
  });
});
