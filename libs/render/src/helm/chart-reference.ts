import type { ChartCredentials } from './chart-download';

/** ChartRepositorySpec is one chart repository: HTTP (an index.yaml and its archives) or an OCI registry path. */
export interface ChartRepositorySpec {
  /**
   * The URL Chart.yaml dependencies name it by: https (or http on loopback), or oci://host/path for
   * charts in an OCI registry (pulled by helm itself); no credentials in it.
   */
  readonly url: string;
  /** A CA certificate (PEM) an OCI registry's certificate may chain to. @defaultValue the system's roots */
  readonly certificateAuthority?: string;
  /** Asked for at each download (a Secret's current data); the value is never logged or kept. */
  readonly credentials?: () => Promise<ChartCredentials>;
  /** Where the credentials come from, for messages, e.g. "Secret tidemark/charts on cluster mgmt". */
  readonly credentialsFrom?: string;
}

/** ChartReference is a dependency to download: a known repository, a chart name and an exact version. */
export interface ChartReference {
  readonly repository: KnownRepository;
  readonly name: string;
  readonly version: string;
}

/** KnownRepository is a configured repository with its URL normalised. */
export interface KnownRepository extends ChartRepositorySpec {
  /** The URL with one trailing slash, the base of relative archive URLs. */
  readonly base: URL;
}

