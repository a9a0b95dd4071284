import type { ClusterConnection } from '@tidemark/cluster';
import { CliError, ExitCode } from '../cli-error';
import type { Environment } from '../config';
import type { Output } from '../output';
import { snapshotLocal } from '../local-snapshot';
import { loadKubeconfig, withContext } from '../kubeconfig';
import { exitCodeOf, printReport } from './report';

/** DiffOptions: what to compare (a folder's working tree, or a ref of its repository) and which clusters. */
export interface DiffOptions {
  directory: string;
  ref?: string;
  /** The source's folder inside the repository, as in tidemark.yaml. @defaultValue the whole repository */
  path?: string;
  /** The source's name, for object keys and messages. @defaultValue 'local' */
  source: string;
  kubeconfig?: string;
  /** Contexts of the kubeconfig, one per cluster (the cluster is named after its context). @defaultValue the current context */
  contexts: readonly string[];
  /** Labels the clusters carry for Placement rules. */
  labels: Readonly<Record<string, string>>;
  markdown: boolean;
}

/**
 * diffCommand compares a local working tree (or a ref) with what is live: every object is rendered
 * by the pipeline's own stages and server-side dry-run on each cluster with the kubeconfig's
 * credentials, as Tidemark's field manager would apply it. Nothing is written: not to a cluster,
 * not to the user's repository. Objects the tree no longer declares are not listed (that needs
 * the status records; `tidemark preview` of a pushed branch lists them).
 */
export async function diffCommand(output: Output, env: Environment, options: DiffOptions): Promise<ExitCode> {
  const [{ GitSource, parseSourceSpec, SourceSpecError }, { ClusterConnection: Connection }, { createDefaultRegistry }, preview] = await Promise.all([
    import('@tidemark/git-source'), import('@tidemark/cluster'), import('@tidemark/kinds'), import('@tidemark/preview'),
  ]);
  const kubeconfig = loadKubeconfig(options.kubeconfig, env);
  const contexts = options.contexts.length > 0 ? options.contexts : [kubeconfig.getCurrentContext()];
  for (const context of contexts) withContext(kubeconfig, context);
  const snapshot = await snapshotLocal(options.directory, options.ref, env);
  const connections = new Map<string, ClusterConnection>();
  try {
    let spec;
    try {
      spec = parseSourceSpec({ name: options.source, url: 'http://127.0.0.1/local-snapshot', ref: { commit: snapshot.revision }, intervalMs: 60_000, ...(options.path ? { path: options.path } : {}) }, 'diff');
    } catch (error) {
      if (error instanceof SourceSpecError) throw new CliError('UsageInvalid', error.message.replace(/^diff\.name/, '--source').replace(/^diff\.path/, '--path'), ExitCode.Usage);
      throw error;
    }
    // The snapshot's commit is already in the folder, so the source never fetches from its URL.
    const head = new GitSource({ spec, cacheDir: snapshot.gitdir });
    await head.open();
    for (const context of contexts) connections.set(context, Connection.connect({ cluster: context, kubeconfig: withContext(kubeconfig, context), fieldManager: 'tidemark' }));
    const nothing = { listObjects: async () => ({ objects: [] }), readObject: async () => undefined };
    const report = await preview.previewRevision(
      { source: options.source, ref: snapshot.label, baseRevision: snapshot.revision, revision: snapshot.revision, requestedAt: new Date().toISOString() },
      {
        base: nothing, head, clusters: contexts.map((name) => ({ name, labels: { ...options.labels } })),
        render: { connectionFor: (cluster) => connections.get(cluster)!, kinds: createDefaultRegistry(), statusStore: { get: async () => undefined } },
      },
    );
    await head.close();
    printReport(output, report, options.markdown ? { markdown: (shown) => preview.previewMarkdown(shown) } : {});
    return exitCodeOf(report);
  } finally {
    for (const connection of connections.values()) connection.close();
    await snapshot.remove();
  }
}
