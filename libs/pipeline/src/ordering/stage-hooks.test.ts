import { describe, expect, it } from 'vitest';
import { formatLogTail } from './stage-hooks';

describe('formatLogTail', () => {
  it('quotes the last ten lines, each cut to 200 characters, scrubbed of credentials', () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index}`);
    lines.push(`connecting to postgres://migrator:hunter2@db:5432/shop?password=hunter2 with Authorization: Bearer abcdefghijklmnop`, 'y'.repeat(5_000));
    const quoted = formatLogTail('migrate-abc-x1', `${lines.join('\n')}\n`);
    expect(quoted).toMatch(/^ Last log lines of pod migrate-abc-x1: line 22 \| /);
    expect(quoted).not.toContain('line 21 ');
    expect(quoted).not.toContain('hunter2');
    expect(quoted).not.toContain('abcdefghijklmnop');
    expect(quoted).toContain('postgres://***@db:5432');
    expect(quoted.length).toBeLessThan(10 * 210 + 100);
    expect(quoted.endsWith(`${'y'.repeat(200)}…`)).toBe(true);
  });

  it('quotes no control character of the cluster\'s log', () => {
    expect(formatLogTail('p', '\u001b[31mmigration failed\u001b[0m\u0007\r\nexit\u0000 1\n')).toBe(' Last log lines of pod p: migration failed | exit 1');
  });

  it('says so when the pod logged nothing', () => {
    expect(formatLogTail('p', '\n\n')).toBe(' Pod p logged nothing.');
  });
});
