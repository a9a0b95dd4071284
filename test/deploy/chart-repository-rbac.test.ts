// The Secrets of chart repositories (render.chartRepositories[].secretRef): the Helm chart grants
// the reconciler `get` on exactly the Secrets its config names, and the Kustomize component on
// exactly its one Secret (the shared suite: secret-get-roles.ts).
import { describeSecretGetRoles } from './secret-get-roles';

describeSecretGetRoles({
  owners: 'chart repositories',
  owner: 'chart repository',
  tag: 'cr',
  roleSuffix: 'chart-repositories',
  configLines: ({ home, other, firstSecret }) => [
    '  render:',
    '    chartRepositories:',
    `      - { url: https://a.example.com/charts, secretRef: { namespace: ${home}, name: ${firstSecret} } }`,
    `      - { url: https://b.example.com/charts, secretRef: { namespace: ${other}, name: charts-b } }`,
    `      - { url: https://c.example.com/charts, secretRef: { cluster: in-cluster, namespace: ${home}, name: charts-c } }`,
    `      - { url: https://d.example.com/charts, secretRef: { cluster: remote, namespace: ${home}, name: charts-remote } }`,
    '      - { url: https://e.example.com/charts }',
  ],
  firstSecret: 'charts-a',
  remoteSecret: 'charts-remote',
  granted: { home: ['charts-a', 'charts-c'], other: ['charts-b'] },
  wildcardError: /config\.render\.chartRepositories\[0\]\.secretRef: wildcards are not allowed/,
  component: { name: 'chart-repository-secrets', secret: 'tidemark-chart-repository', namePrefix: 'p' },
});
