// Checks rendered manifests against a real kube-apiserver: objects by server-side dry-run, pod
// templates by Pod Security admission, and RBAC by SubjectAccessReview.
import { kubectl } from '@tidemark/testing';
import { toYamlStream, type Manifest } from './render';

const workloadKinds = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job']);

/** applyForReal creates or updates objects with server-side apply under a test field manager. */
export async function applyForReal(kubeconfigPath: string, objects: readonly Manifest[]): Promise<void> {
  if (objects.length === 0) return;
  await kubectl(kubeconfigPath, ['apply', '--server-side', '--field-manager=tidemark-deploy-test', '-f', '-'], toYamlStream(objects));
}

/** createIfMissing creates objects that do not exist yet and leaves existing ones (others' tests may own them). */
export async function createIfMissing(kubeconfigPath: string, objects: readonly Manifest[]): Promise<void> {
  for (const object of objects) {
    await kubectl(kubeconfigPath, ['create', '-f', '-'], JSON.stringify(object)).catch((error: unknown) => {
      if (!String(error).includes('AlreadyExists') && !String(error).includes('already exists')) throw error;
    });
  }
}

/**
 * dryRunOnServer sends every object to the API server with `--dry-run=server`: schema,
 * defaulting and admission run, nothing is stored. It rejects with the server's message.
 */
export async function dryRunOnServer(kubeconfigPath: string, objects: readonly Manifest[]): Promise<string> {
  return kubectl(kubeconfigPath, ['apply', '--server-side', '--dry-run=server', '--field-manager=tidemark-deploy-test', '-o', 'name', '-f', '-'], toYamlStream(objects));
}

/** podsOf turns each workload's pod template into a Pod, so Pod Security admission judges it. */
export function podsOf(objects: readonly Manifest[]): Manifest[] {
  return objects.filter((object) => workloadKinds.has(object.kind)).map((object) => {
    const spec = object.spec as { template: { metadata?: { labels?: Record<string, string> }; spec: { volumes?: unknown[] } }; volumeClaimTemplates?: { metadata: { name: string } }[] };
    // A StatefulSet's claim templates become volumes of its pods.
    const claims = (spec.volumeClaimTemplates ?? []).map((claim) => ({ name: claim.metadata.name, persistentVolumeClaim: { claimName: `${claim.metadata.name}-${object.metadata.name}-0` } }));
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${object.metadata.name}-probe`, namespace: object.metadata.namespace, labels: spec.template.metadata?.labels ?? {} },
      spec: { ...spec.template.spec, volumes: [...(spec.template.spec.volumes ?? []), ...claims] },
    };
  });
}

/** createPodsDryRun creates the pods with a server-side dry-run; a restricted namespace refuses any that is not. */
export async function createPodsDryRun(kubeconfigPath: string, pods: readonly Manifest[]): Promise<void> {
  for (const pod of pods) await kubectl(kubeconfigPath, ['create', '--dry-run=server', '-o', 'name', '-f', '-'], JSON.stringify(pod));
}

export interface AccessQuestion {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/**
 * canServiceAccount asks the API server's RBAC authorizer, with one SubjectAccessReview per
 * question (all in one kubectl call), whether a ServiceAccount may do each thing.
 */
export async function canServiceAccount(kubeconfigPath: string, serviceAccount: { namespace: string; name: string }, questions: readonly AccessQuestion[]): Promise<boolean[]> {
  const reviews = questions.map((question) => JSON.stringify({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: `system:serviceaccount:${serviceAccount.namespace}:${serviceAccount.name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${serviceAccount.namespace}`, 'system:authenticated'],
      resourceAttributes: question,
    },
  }));
  // One line per review, in input order: "true" or "false".
  const output = await kubectl(kubeconfigPath, ['create', '-o', 'jsonpath={.status.allowed}{"\\n"}', '-f', '-'], reviews.join('\n---\n'));
  const answers = output.trim().split('\n');
  if (answers.length !== questions.length) throw new Error(`asked ${questions.length} SubjectAccessReviews, got ${answers.length} answers: ${output}`);
  return answers.map((answer) => answer === 'true');
}

/** describeQuestion names a question in test output, e.g. "patch customresourcedefinitions/webapps.tidemark.dev". */
export function describeQuestion(question: AccessQuestion): string {
  const resource = [question.group ? `${question.resource}.${question.group}` : question.resource, question.subresource].filter(Boolean).join('/');
  return `${question.verb} ${resource}${question.name ? ` ${question.name}` : ''}`;
}
