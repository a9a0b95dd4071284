import { describe, expect, it } from 'vitest';
import { substituteClusterValues, substituteDeep, usesClusterValues } from './cluster-values';

const eu = { name: 'eu-1', labels: { env: 'prod' }, variables: { replicas: '3', 'image.tag': '1.27' } };

describe('cluster values', () => {
  it('replaces the name, labels and variables', () => {
    expect(substituteClusterValues('${cluster.name}/${cluster.labels.env}/${cluster.variables.replicas}/${cluster.variables.image.tag}', eu, 'f')).toBe('eu-1/prod/3/1.27');
    expect(substituteDeep({ a: ['${cluster.name}', 1] }, eu, 'f')).toEqual({ a: ['eu-1', 1] });
  });

  it('refuses a value the cluster does not set, naming the file, the cluster and the variable', () => {
    expect(() => substituteClusterValues('${cluster.variables.missing}', eu, 'app/tidemark-render.yaml'))
      .toThrow('app/tidemark-render.yaml uses ${cluster.variables.missing}, which cluster eu-1 does not set');
  });

  it('spots text that uses cluster values', () => {
    expect(usesClusterValues('count: "${cluster.variables.replicas}"')).toBe(true);
    expect(usesClusterValues('count: 3 # ${HOME}')).toBe(false);
  });
});
