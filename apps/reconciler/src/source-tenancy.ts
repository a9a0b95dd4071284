import type { SourceTenancy } from '@tidemark/pipeline';
import type { ReconcilerConfig } from './config';

/** sourceTenancy gives each source's identity (its own, else the lockdown default) and allow-list to the pipeline. */
export function sourceTenancy(config: Pick<ReconcilerConfig, 'sources' | 'defaultServiceAccount'>): (source: string) => SourceTenancy | undefined {
  const bySource = new Map(config.sources.map((spec) => {
    const serviceAccount = spec.serviceAccount ?? config.defaultServiceAccount;
    return [spec.name, { ...(serviceAccount ? { serviceAccount } : {}), ...(spec.allow ? { allow: spec.allow } : {}) }];
  }));
  // A job naming an unknown source reads nothing from Git; under lockdown it still acts as the default.
  const fallback = config.defaultServiceAccount ? { serviceAccount: config.defaultServiceAccount } : undefined;
  return (source) => bySource.get(source) ?? fallback;
}
