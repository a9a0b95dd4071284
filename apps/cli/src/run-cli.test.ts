import { describe, expect, it } from 'vitest';
import { runCli } from './program';

describe('runCli', () => {
  it('scrubs credentials from the error it prints, by the one secret rule', async () => {
    let stderr = '';
    const io = { env: { XDG_CONFIG_HOME: '/nonexistent-tidemark', HOME: '/nonexistent-tidemark' }, stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } };
    const code = await runCli(['--server', 'https://bob:hunter2-secret@dash example', 'status'], io);
    expect(code).toBe(2);
    expect(stderr).toContain('is not a URL');
    expect(stderr).toContain('https://***@dash example');
    expect(stderr).not.toContain('hunter2-secret');
  });
});
