// The Secrets of notification providers (notifications.providers[].address.secretRef and
// .hmacKey.secretRef): the Helm chart grants the reconciler `get` on exactly the Secrets its config
// names, and the Kustomize component on exactly its one Secret (the shared suite: secret-get-roles.ts).
import { describeSecretGetRoles } from './secret-get-roles';

describeSecretGetRoles({
  owners: 'notification providers',
  owner: 'notification provider',
  tag: 'nt',
  roleSuffix: 'notifications',
  configLines: ({ home, other, firstSecret }) => [
    '  notifications:',
    '    providers:',
    `      - { name: ops, type: webhook, address: { secretRef: { namespace: ${home}, name: ${firstSecret}, key: url } }, hmacKey: { secretRef: { cluster: in-cluster, namespace: ${home}, name: hook-keys, key: ops } } }`,
    `      - { name: chat, type: slack, address: { secretRef: { namespace: ${other}, name: slack, key: url } } }`,
    `      - { name: far, type: teams, address: { secretRef: { cluster: remote, namespace: ${home}, name: teams-remote, key: url } } }`,
    '      - { name: plain, type: webhook, address: { env: PLAIN_URL } }',
    '    alerts: []',
  ],
  firstSecret: 'hooks',
  remoteSecret: 'teams-remote',
  granted: { home: ['hook-keys', 'hooks'], other: ['slack'] },
  wildcardError: /config\.notifications\.providers\[0\]\.address\.secretRef: wildcards are not allowed/,
  component: { name: 'notification-secrets', secret: 'tidemark-notifications', namePrefix: 'n' },
});
