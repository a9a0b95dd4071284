import { describe, expect, it } from 'vitest';
import { maxRenderWarningLength, maxRenderWarnings, renderWarnings } from './render-warnings';

const keep = (line: string) => line;

describe('renderWarnings', () => {
  it("reads kustomize's and helm's warnings without their decoration, once each", () => {
    const stderr = [
      "# Warning: 'bases' is deprecated. Please use 'resources' instead. Run 'kustomize edit fix' to update your Kustomization automatically.",
      'WARNING: This chart is deprecated',
      'WARNING: This chart is deprecated',
      'walk.go:75: found symbolic link in path: templates/link.yaml',
      '',
    ].join('\n');
    expect(renderWarnings(stderr, keep)).toEqual([
      "'bases' is deprecated. Please use 'resources' instead. Run 'kustomize edit fix' to update your Kustomization automatically.",
      'This chart is deprecated',
      'found symbolic link in path: templates/link.yaml',
    ]);
  });

  it('hides the values a tool quotes: helm prints a values entry in parentheses or as a Go map', () => {
    const stderr = [
      'coalesce.go:319: warning: destination for shop.auth.password is a table. Ignoring non-table value (s3cret-Value-42)',
      'coalesce.go:316: warning: cannot overwrite table with non table for shop.auth (map[password:hunter22])',
      'skipped value for shop.tls: map[key:abc123]',
    ].join('\n');
    const warnings = renderWarnings(stderr, keep);
    expect(warnings).toEqual([
      'destination for shop.auth.password is a table. Ignoring non-table value (value hidden)',
      'cannot overwrite table with non table for shop.auth (value hidden)',
      'skipped value for shop.tls: (value hidden)',
    ]);
    expect(warnings.join('\n')).not.toMatch(/s3cret|hunter22|abc123/);
  });

  it('passes every line through the scrub (decrypted values, temporary paths)', () => {
    expect(renderWarnings('warning: /tmp/tidemark-render-x/repo/apps/a.yaml has key top-secret-token', (line) => line.replace('/tmp/tidemark-render-x/repo/', '').replace('top-secret-token', '[redacted]')))
      .toEqual(['apps/a.yaml has key [redacted]']);
  });

  it('keeps a bounded number of bounded warnings', () => {
    const stderr = Array.from({ length: 100 }, (_, index) => `warning: ${index} ${'x'.repeat(1_000)}`).join('\n');
    const warnings = renderWarnings(stderr, keep);
    expect(warnings).toHaveLength(maxRenderWarnings);
    for (const warning of warnings) expect(warning.length).toBeLessThanOrEqual(maxRenderWarningLength);
    expect(warnings[0]).toMatch(/^0 x+…$/);
  });
});
