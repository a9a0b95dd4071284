import type { PreviewAction, PreviewBlastRadius, PreviewChange } from '@tidemark/contracts';

const rbacKinds = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
const actions: PreviewAction[] = ['created', 'configured', 'unchanged', 'deleted', 'invalid', 'skipped'];

/**
 * blastRadius sums up how far the changes reach (clusters, namespaces, kinds that change) and
 * flags what deserves a second look: RBAC, CRDs, and deleted Namespaces (which take everything in them).
 */
export function blastRadius(changes: readonly PreviewChange[]): PreviewBlastRadius {
  const moving = changes.filter((change) => change.action !== 'unchanged' && change.action !== 'skipped');
  const counts = Object.fromEntries(actions.map((action) => [action, 0])) as Record<PreviewAction, number>;
  for (const change of changes) counts[change.action] += 1;
  const sorted = (values: Iterable<string>) => [...new Set(values)].filter(Boolean).sort();
  return {
    clusters: sorted(moving.map((change) => change.cluster)),
    namespaces: sorted(moving.map((change) => (change.kind === 'Namespace' ? change.name : change.namespace))),
    kinds: sorted(moving.map((change) => change.kind)),
    counts,
    flagged: moving.flatMap((change) => {
      const why = flagOf(change);
      return why ? [`${change.cluster}: ${change.kind} ${change.namespace ? `${change.namespace}/` : ''}${change.name} — ${why}`] : [];
    }),
  };
}

function flagOf(change: PreviewChange): string | undefined {
  if (change.action === 'invalid') return undefined;
  if (rbacKinds.has(change.kind) && change.apiVersion.startsWith('rbac.authorization.k8s.io/')) return `RBAC ${change.action}: who may do what changes`;
  if (change.kind === 'CustomResourceDefinition') return `CRD ${change.action}: every object of its kind is affected`;
  if (change.kind === 'Namespace' && change.action === 'deleted') return 'Namespace deleted: everything in it is deleted';
  return undefined;
}
