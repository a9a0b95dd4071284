import type { SourceSpec } from '@tidemark/git-source';
import type { SourceTenancy } from '@tidemark/pipeline';
import type { ReconcilerConfig } from './config';

/**
 * sourceTenancy gives each source's identity (its own, else the lockdown default) and allow-list to
 * the pipeline. It reads the sources as they are at the run (`sources`: config-file sources and the
 * Source objects added at runtime, with their serviceAccount and allow), never a copy taken at start.
 */
export function sourceTenancy(sources: ReadonlyMap<string, { readonly spec: SourceSpec }>, config: Pick<ReconcilerConfig, 'defaultServiceAccount'>): (source: string) => SourceTenancy | undefined {
  // A job naming an unknown source reads nothing from Git; under lockdown it still acts as the default.
  const fallback = config.defaultServiceAccount ? { serviceAccount: config.defaultServiceAccount } : undefined;
  return (source) => {
    const spec = sources.get(source)?.spec;
    if (!spec) return fallback;
    const serviceAccount = spec.serviceAccount ?? config.defaultServiceAccount;
    return { ...(serviceAccount ? { serviceAccount } : {}), ...(spec.allow ? { allow: spec.allow } : {}) };
  };
}
