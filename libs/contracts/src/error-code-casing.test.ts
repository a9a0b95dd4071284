import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Error codes and condition reasons are PascalCase everywhere (the Kubernetes convention:
// `ReconciliationFailed`, `KindNotServed`), so a consumer matches one spelling. A SCREAMING_CASE
// string literal in production code is a code in the other casing, unless it names something
// outside Tidemark: an environment variable, one of Node's own error codes, or git's FETCH_HEAD.
const outside = /^(TIDEMARK_[A-Z0-9_]+|ERR_[A-Z0-9_]+|METRICS_PORT|KUBERNETES_SERVICE_(HOST|PORT)|FETCH_HEAD)$/;

function productionSources(): string[] {
  const listed = execFileSync('git', ['ls-files', 'libs/*.ts', 'apps/*.ts'], { encoding: 'utf8' });
  return listed.split('\n').filter((file) => file && !file.endsWith('.test.ts'));
}

describe('error code casing', () => {
  it('has no SCREAMING_CASE code or reason in production code', () => {
    const found: string[] = [];
    for (const file of productionSources()) {
      for (const match of readFileSync(file, 'utf8').matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g)) {
        if (!outside.test(match[1]!)) found.push(`${file}: ${match[1]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
