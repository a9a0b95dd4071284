import type { ClusterCapabilities } from '@tidemark/contracts';
import { messageOf } from '@tidemark/contracts';
import { readCapabilities } from './capabilities';
import type { ClusterConnection } from './connection';

interface Known {
  value?: ClusterCapabilities;
  fingerprint?: string;
  reading?: Promise<ClusterCapabilities>;
  /** Set while a read runs and another was asked for: one more read follows it. */
  again?: boolean;
  /** Whether anyone asked for this cluster's capabilities (of): until then a refresh reads nothing. */
  asked?: boolean;
}

/**
 * CapabilitiesCache keeps each cluster's capabilities (readCapabilities), read at the first ask and
 * again when told (a CRD became Established or went away). `generation` changes whenever what any
 * cluster reports changes, so whoever rendered with the old answer knows to render again.
 */
export class CapabilitiesCache {
  private readonly known = new Map<string, Known>();
  private changes = 0;

  constructor(private readonly connectionFor: (cluster: string) => ClusterConnection | undefined) {}

  /** generation counts the changes seen in any cluster's capabilities. */
  get generation(): number {
    return this.changes;
  }

  /**
   * of returns a cluster's capabilities: the last answer read, or a first read. It throws when the
   * cluster has never answered (rendering for it with helm's defaults would render the wrong thing).
   */
  async of(cluster: string): Promise<ClusterCapabilities> {
    const known = this.entry(cluster);
    known.asked = true;
    if (known.value) return known.value;
    return known.reading ?? this.read(cluster, known);
  }

  /**
   * refresh reads a cluster's capabilities again (once more after a read already running); true when they changed.
   * Nothing is read for a cluster no render has asked about: no render used an answer that could be stale, and
   * the first ask reads afresh. A start that installs the built-in CRDs so skips four discovery walks.
   */
  async refresh(cluster: string): Promise<boolean> {
    const known = this.entry(cluster);
    if (!known.asked) return false;
    const before = known.fingerprint;
    if (known.reading) {
      known.again = true;
      await known.reading.catch(() => undefined);
      if (known.reading) await known.reading.catch(() => undefined);
    } else {
      await this.read(cluster, known).catch(() => undefined);
    }
    return known.fingerprint !== before;
  }

  private entry(cluster: string): Known {
    let known = this.known.get(cluster);
    if (!known) {
      known = {};
      this.known.set(cluster, known);
    }
    return known;
  }

  private read(cluster: string, known: Known): Promise<ClusterCapabilities> {
    const connection = this.connectionFor(cluster);
    if (!connection) return Promise.reject(new Error(`no cluster named ${cluster} is configured`));
    const reading = readCapabilities(connection).then((value) => {
      const fingerprint = JSON.stringify(value);
      if (fingerprint !== known.fingerprint) {
        known.fingerprint = fingerprint;
        known.value = value;
        this.changes += 1;
      }
      return value;
    }, (error: unknown) => {
      throw new Error(`cannot read the discovery of cluster ${cluster}: ${messageOf(error)}`);
    }).finally(() => {
      known.reading = undefined;
      if (known.again) {
        known.again = false;
        known.reading = this.read(cluster, known);
        known.reading.catch(() => undefined);
      }
    });
    known.reading = reading;
    return reading;
  }
}
