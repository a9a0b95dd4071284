import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { inReleaseNamespace } from './release-namespace';

const objects = (text: string) => parseAllDocuments(text).map((document) => document.toJS() as { kind: string; metadata: { name: string; namespace?: string } } | null).filter((value) => value !== null);
const namespaces = (text: string) => Object.fromEntries(objects(text).map((object) => [`${object.kind}/${object.metadata.name}`, object.metadata.namespace]));

const chartOutput = [
  '---\n# Source: shop/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  labels:\n    app.kubernetes.io/managed-by: Helm\nspec:\n  ports: [{port: 80}]\n',
  '---\n# Source: shop/templates/role.yaml\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n',
  '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: elsewhere\n  namespace: other\ndata:\n  long: "' + 'x'.repeat(200) + ' y"\n',
  '---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Cluster\n  names: {kind: Widget, plural: widgets}\n',
  '---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: one\n',
  '---\napiVersion: monitoring.coreos.com/v1\nkind: Probe\nmetadata:\n  name: two\n',
].join('');

describe('inReleaseNamespace', () => {
  it('puts namespace-less namespaced objects in the release namespace, as helm install -n does', () => {
    expect(namespaces(inReleaseNamespace(chartOutput, 'test', undefined))).toEqual({
      'Service/web': 'test',
      'ClusterRole/reader': undefined,
      'ConfigMap/elsewhere': 'other',
      'CustomResourceDefinition/widgets.example.com': undefined,
      'Widget/one': undefined,
      'Probe/two': 'test',
    });
  });

  it('decides scope by the cluster\'s discovery when given', () => {
    const capabilities = { kubeVersion: 'v1.31.0', apiVersions: [], clusterScopedKinds: ['monitoring.coreos.com/Probe'] };
    expect(namespaces(inReleaseNamespace(chartOutput, 'test', capabilities))['Probe/two']).toBeUndefined();
  });

  it('keeps every other field and the chart\'s own labels as rendered', () => {
    const before = objects(chartOutput);
    const after = objects(inReleaseNamespace(chartOutput, 'test', undefined));
    expect(after).toHaveLength(before.length);
    after.forEach((object, index) => expect({ ...object, metadata: { ...object.metadata, namespace: before[index]!.metadata.namespace } }).toEqual(before[index]));
  });

  it('leaves a stream that does not parse as it is, for the loader to report', () => {
    const broken = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n';
    expect(inReleaseNamespace(broken, 'test', undefined)).toBe(broken);
  });
});
