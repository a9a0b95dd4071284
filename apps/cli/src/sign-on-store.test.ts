import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSignOn, signOnPath, writeSignOn } from './sign-on-store';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
const folder = () => {
  const made = mkdtempSync(join(tmpdir(), 'tidemark-sign-on-'));
  folders.push(made);
  return made;
};
const signOn = { server: 'https://dash.example.test', issuer: 'https://id.example.test', clientId: 'tidemark-cli', idToken: 'a.b.c', expiresAt: 1, refreshToken: 'r' };

describe('the sign-on file', () => {
  it('is written mode 0600 in a 0700 folder, also over a file that was readable by others', () => {
    const path = join(folder(), 'tidemark', 'sign-on.json');
    writeSignOn(path, signOn);
    writeFileSync(path, '{}', { mode: 0o644 });
    writeSignOn(path, signOn);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(readSignOn(path)).toEqual(signOn);
  });

  it('is found under XDG_CONFIG_HOME, HOME, or TIDEMARK_SIGN_ON_FILE', () => {
    expect(signOnPath({ HOME: '/home/ann' })).toBe('/home/ann/.config/tidemark/sign-on.json');
    expect(signOnPath({ XDG_CONFIG_HOME: '/x', HOME: '/home/ann' })).toBe('/x/tidemark/sign-on.json');
    expect(signOnPath({ TIDEMARK_SIGN_ON_FILE: '/run/s.json' })).toBe('/run/s.json');
  });

  it('is absent (no sign-on), or refused by name when damaged, without quoting it', () => {
    const base = folder();
    expect(readSignOn(join(base, 'none.json'))).toBeUndefined();
    const damaged = join(base, 'damaged.json');
    writeFileSync(damaged, '{"idToken": "secret-token-text"');
    expect(() => readSignOn(damaged)).toThrow(/damaged.json is not JSON/);
    writeFileSync(damaged, JSON.stringify({ ...signOn, expiresAt: 'soon' }));
    expect(() => readSignOn(damaged)).toThrow(/not a sign-on tidemark wrote/);
    try {
      readSignOn(damaged);
    } catch (error) {
      expect((error as Error).message).not.toContain('a.b.c');
    }
  });
});
