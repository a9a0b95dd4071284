import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { healthRuleCrd, healthRuleCrdHeader } from './health-rule-crd';

describe('HealthRule CRD', () => {
  it('deploy/crds/healthrules.tidemark.dev.yaml matches the TypeScript (run `npx tsx scripts/generate-crds.ts`)', () => {
    const file = readFileSync(new URL('../../../../../deploy/crds/healthrules.tidemark.dev.yaml', import.meta.url), 'utf8');
    expect(file).toBe(healthRuleCrdHeader + stringify(healthRuleCrd(), { lineWidth: 0 }));
  });
});
