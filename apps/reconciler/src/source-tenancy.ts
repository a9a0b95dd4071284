import type { SourceSpec } from '@tidemark/git-source';
import type { SourceTenancy } from '@tidemark/pipeline';
import type { ReconcilerConfig } from './config';

/**
 * sourceTenancy gives each source's identity (its own, else the lockdown default) and allow-list to
 * the pipeline. It reads the sources as they are at the run (`sources`: config-file sources and the
 * Source objects added at runtime, with their serviceAccount and allow), never a copy taken at start.
 *
 * A Source object (its name is `<namespace>.<name>`; config-file names hold no dot) is written by a
 * tenant, so it fails closed: without an identity of its own (or the operator's per-namespace
 * default, folded in when it was parsed), or unknown here, it acts as nobody, never as the
 * reconciler or the config-file lockdown identity.
 */
export function sourceTenancy(sources: ReadonlyMap<string, { readonly spec: SourceSpec }>, config: Pick<ReconcilerConfig, 'defaultServiceAccount'>): (source: string) => SourceTenancy | undefined {
  // A job naming an unknown source reads nothing from Git; under lockdown it still acts as the default.
  const fallback = config.defaultServiceAccount ? { serviceAccount: config.defaultServiceAccount } : undefined;
  return (source) => {
    const spec = sources.get(source)?.spec;
    if (isSourceObject(source)) return sourceObjectTenancy(source, spec);
    if (!spec) return fallback;
    const serviceAccount = spec.serviceAccount ?? config.defaultServiceAccount;
    return { ...(serviceAccount ? { serviceAccount } : {}), ...(spec.allow ? { allow: spec.allow } : {}) };
  };
}

function isSourceObject(source: string): boolean {
  return source.includes('.');
}

function sourceObjectTenancy(source: string, spec: SourceSpec | undefined): SourceTenancy {
  if (!spec?.serviceAccount) {
    // Namespaces hold no dot; a Source's name may.
    const namespace = source.slice(0, source.indexOf('.'));
    const name = source.slice(namespace.length + 1);
    const why = spec ? 'names no spec.serviceAccount' : 'is not known to this process';
    return { refused: `Source ${namespace}/${name} ${why}, and a Source never acts as the reconciler: set spec.serviceAccount to a ServiceAccount of ${namespace}, or ask the operator for sourceObjects.defaultServiceAccountName.` };
  }
  return { serviceAccount: spec.serviceAccount, ...(spec.allow ? { allow: spec.allow } : {}) };
}

/** sourceOwner says who wrote a source: a Source object is a tenant's, a config-file source the operator's. */
export function sourceOwner(source: string): 'operator' | 'tenant' {
  return isSourceObject(source) ? 'tenant' : 'operator';
}
