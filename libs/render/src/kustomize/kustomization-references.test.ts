import { describe, expect, it } from 'vitest';
import { kustomizationReferences, looksRemote } from './kustomization-references';

describe('kustomization references', () => {
  it('reads resources, bases and components, skipping inline transformer configs', () => {
    const text = 'resources:\n  - ../base\n  - svc.yaml\nbases: [../old]\ncomponents: [../../components/x]\ntransformers:\n  - {apiVersion: builtin, kind: LabelTransformer}\n  - labels.yaml\n';
    expect(kustomizationReferences(text, 'k/kustomization.yaml').map((reference) => `${reference.field} ${reference.value}`)).toEqual([
      'resources ../base', 'resources svc.yaml', 'bases ../old', 'components ../../components/x', 'transformers labels.yaml',
    ]);
  });

  it('names the file for a kustomization that is not a mapping', () => {
    expect(() => kustomizationReferences('- a\n', 'app/kustomization.yaml')).toThrow('app/kustomization.yaml: a kustomization must be a mapping');
  });

  it('tells remote bases from local paths', () => {
    for (const remote of ['https://github.com/org/repo//base?ref=v1', 'github.com/org/repo/base?ref=main', 'git@github.com:org/repo.git', 'ssh://git@host/x', 'example.com/org/repo']) {
      expect(looksRemote(remote), remote).toBe(true);
    }
    for (const local of ['../base', 'deployment.yaml', 'sub/dir', '../../components/monitoring']) expect(looksRemote(local), local).toBe(false);
  });
});
