import { createHash } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { loadSelfContainedKubeconfig } from '@tidemark/cluster';
import { TerminalError, messageOf } from '@tidemark/contracts';
import { credentialsWhere, type ClusterDeclaration } from './parse-cluster-object';

/** LoadedCredentials are a Cluster's kubeconfig, in memory only, and a hash that tells a rotation apart. */
export interface LoadedCredentials {
  readonly kubeconfig: KubeConfig;
  /** sha256 of what the credentials were loaded from (and whether plugins may run); never the credentials. */
  readonly fingerprint: string;
}

/** ClusterCredentialCode is the stable code of each way a Cluster's credentials fail to load. */
export const ClusterCredentialCode = {
  SecretNotFound: 'KubeconfigSecretNotFound',
  InvalidKubeconfig: 'InvalidKubeconfig',
} as const;

/**
 * loadClusterCredentials loads a Cluster's kubeconfig under exactly the rules of a config-file
 * cluster's kubeconfigSecret (libs/cluster's loadSelfContainedKubeconfig: inline credentials only,
 * no exec or auth-provider unless allowed). `secretData` is the Secret's data (base64), or
 * undefined when it does not exist. Failures are TerminalErrors naming the Cluster, the field,
 * the Secret and its key, never a value.
 */
export function loadClusterCredentials(declaration: ClusterDeclaration, secretData: Readonly<Record<string, string>> | undefined, allowExecPlugins: boolean): LoadedCredentials {
  const ref = declaration.credentials;
  const where = credentialsWhere(declaration);
  if (!('secret' in ref)) {
    const kubeconfig = new KubeConfig();
    try {
      kubeconfig.loadFromCluster();
    } catch (error) {
      throw new TerminalError(ClusterCredentialCode.InvalidKubeconfig, `${where}: the reconciler's own ServiceAccount cannot be read: ${messageOf(error)}`);
    }
    return { kubeconfig, fingerprint: 'in-cluster' };
  }
  const encoded = secretData?.[ref.secret.key];
  if (!encoded) {
    throw new TerminalError(ClusterCredentialCode.SecretNotFound, `${where}: the Secret or its key does not exist; create it in namespace ${ref.secret.namespace} with the kubeconfig under the key ${ref.secret.key}. The cluster is not served until it exists.`);
  }
  const refused = declaration.allowExecPlugins && !allowExecPlugins
    ? ' (spec.allowExecPlugins is not honoured: tidemark.yaml does not set clusterObjects.allowExecPlugins)'
    : '';
  try {
    const kubeconfig = loadSelfContainedKubeconfig(Buffer.from(encoded, 'base64').toString('utf8'), where, declaration.allowExecPlugins && allowExecPlugins);
    return { kubeconfig, fingerprint: createHash('sha256').update(`${String(declaration.allowExecPlugins && allowExecPlugins)}\n${encoded}`).digest('hex') };
  } catch (error) {
    throw new TerminalError(ClusterCredentialCode.InvalidKubeconfig, `${messageOf(error)}${refused}`);
  }
}
