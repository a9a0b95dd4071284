import { anyLabelled, ApiError, applyObject, createObject, deleteObject, getObject, ownUsername, replaceObject, type ClusterConnection } from '@tidemark/cluster';
import { messageOf, NotReadyError, stableStringify, TransientError, type KubernetesManifest, type Logger } from '@tidemark/contracts';
import { defaultPreventionRules, mergeTenantUsers, preventedKindsOf, preventionPolicy, preventionPolicyName, preventLabel, tenantUsersOf, trustedUsersOf, type PreventionRules } from '@tidemark/drift';

/** DriftPreventionKeeper keeps each cluster's admission policy for prevented objects (PolicyKeeper). */
export interface DriftPreventionKeeper {
  /**
   * ensure makes the policy exist, trust Tidemark's own identity, trust `identity` (a tenant's
   * ServiceAccount) in `namespaces` only ('' for cluster-scoped objects), and record `kinds`
   * (`group/Kind`) among those it guards, before the run writes.
   */
  ensure(cluster: string, need: PreventionNeed): Promise<void>;
  /** trustIfActive trusts a tenant's `identity` in `namespace` on a policy that exists, so its writes to its own prevented objects still pass. */
  trustIfActive(cluster: string, identity: string, namespace: string): Promise<void>;
  /** mayRelease asks, soon and at most once at a time, whether any object still needs the policy; none does, it is removed. */
  mayRelease(cluster: string): void;
}

/** PreventionNeed is what one run needs of a cluster's policy. */
export interface PreventionNeed {
  /** A tenant's identity the run writes as; none for Tidemark's own. */
  identity?: string | undefined;
  /** The namespaces ('' for cluster-scoped) the tenant's identity writes prevented objects in. */
  namespaces?: readonly string[];
  kinds?: readonly string[];
}

interface ClusterState {
  /** The identities the live policy trusts everywhere, as last read or written; undefined: not read yet. */
  trusted?: Set<string>;
  /** The tenants' identities it trusts, each in its namespaces, as `user\0namespace`. */
  tenants?: Set<string>;
  /** The kinds the live policy records, as last read or written. */
  kinds?: Set<string>;
  exists?: boolean;
  checkedAt: number;
  /** One change at a time per cluster. */
  chain: Promise<unknown>;
  releaseTimer?: NodeJS.Timeout;
}

const policyName = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', name: preventionPolicyName };
const bindingName = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', name: preventionPolicyName };

export interface PolicyKeeperOptions {
  /** Tidemark's own connection to a cluster: the policy is written as the reconciler, never as a tenant. */
  connectionFor(cluster: string): ClusterConnection;
  rules?: Partial<PreventionRules>;
  log?: Logger;
  /** How long what was read of a live policy is believed before it is read again. @defaultValue 60_000 */
  recheckMs?: number;
  /** How long after a prevented object went away the cluster is searched for others. @defaultValue 2_000 */
  releaseDelayMs?: number;
  now?: () => number;
}

/**
 * PolicyKeeper writes the ValidatingAdmissionPolicy and its binding the first time a prevented
 * object is applied to a cluster, and removes them once no object there carries the prevent
 * label. Tidemark's own identity is trusted everywhere; a tenant's only in the namespaces it
 * wrote prevented objects in. What the policy trusts only grows while it exists: each replica
 * adds what it needs with a resourceVersion precondition, so replicas never drop each other's.
 */
export class PolicyKeeper implements DriftPreventionKeeper {
  private readonly states = new Map<string, ClusterState>();
  private readonly owners = new Map<string, Promise<string>>();
  private readonly rules: PreventionRules;

  constructor(private readonly options: PolicyKeeperOptions) {
    this.rules = { ...defaultPreventionRules, ...options.rules };
  }

  async ensure(cluster: string, need: PreventionNeed): Promise<void> {
    const state = this.stateOf(cluster);
    const own = await this.ownOf(cluster);
    const tenants = need.identity && need.identity !== own ? { [need.identity]: [...new Set(need.namespaces ?? [])] } : {};
    const kinds = need.kinds ?? [];
    const tenantsKnown = Object.entries(tenants).every(([user, namespaces]) => namespaces.every((namespace) => state.tenants?.has(`${user}\0${namespace}`)));
    if (this.fresh(state) && state.exists && state.trusted?.has(own) && tenantsKnown && kinds.every((kind) => state.kinds?.has(kind))) return;
    await this.serial(state, () => this.write(cluster, state, [own], tenants, kinds)).catch((error: unknown) => {
      throw new TransientError('DriftPreventionUnavailable', `Could not keep the drift-prevention admission policy on cluster ${cluster} (${messageOf(error)}); nothing prevented is applied until it can. Check that Tidemark may manage validatingadmissionpolicies and their bindings.`, { cause: error });
    });
  }

  async trustIfActive(cluster: string, identity: string, namespace: string): Promise<void> {
    const state = this.stateOf(cluster);
    if (!this.fresh(state)) await this.serial(state, () => this.read(cluster, state));
    if (state.exists && !state.tenants?.has(`${identity}\0${namespace}`)) await this.ensure(cluster, { identity, namespaces: [namespace] });
  }

  mayRelease(cluster: string): void {
    const state = this.stateOf(cluster);
    if (state.exists === false || state.releaseTimer) return;
    state.releaseTimer = setTimeout(() => {
      state.releaseTimer = undefined;
      // Until the search is done, a run that needs the policy waits for it and then writes it again.
      state.checkedAt = 0;
      void this.serial(state, () => this.release(cluster, state)).catch((error: unknown) => {
        this.options.log?.warn({ cluster, err: messageOf(error) }, 'could not check whether the drift-prevention policy is still needed');
      });
    }, this.options.releaseDelayMs ?? 2_000);
    state.releaseTimer.unref();
  }

  /** stop cancels a pending release check. */
  stop(): void {
    for (const state of this.states.values()) if (state.releaseTimer) clearTimeout(state.releaseTimer);
  }

  private stateOf(cluster: string): ClusterState {
    let state = this.states.get(cluster);
    if (!state) this.states.set(cluster, state = { checkedAt: 0, chain: Promise.resolve() });
    return state;
  }

  private fresh(state: ClusterState): boolean {
    return state.exists !== undefined && this.now() - state.checkedAt < (this.options.recheckMs ?? 60_000);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private ownOf(cluster: string): Promise<string> {
    let own = this.owners.get(cluster);
    if (!own) {
      own = ownUsername(this.options.connectionFor(cluster));
      this.owners.set(cluster, own);
      own.catch(() => this.owners.delete(cluster));
    }
    return own;
  }

  private serial<T>(state: ClusterState, work: () => Promise<T>): Promise<T> {
    const next = state.chain.then(work, work);
    state.chain = next.catch(() => undefined);
    return next;
  }

  private async read(cluster: string, state: ClusterState): Promise<KubernetesManifest | undefined> {
    const live = await getObject(this.options.connectionFor(cluster), policyName);
    state.exists = live !== undefined;
    state.trusted = new Set(trustedUsersOf(live));
    state.tenants = tenantKeys(tenantUsersOf(live));
    state.kinds = new Set(preventedKindsOf(live));
    state.checkedAt = this.now();
    return live;
  }

  private async write(cluster: string, state: ClusterState, users: readonly string[], tenants: Readonly<Record<string, readonly string[]>>, kinds: readonly string[]): Promise<void> {
    const connection = this.options.connectionFor(cluster);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const live = await this.read(cluster, state);
      const trusted = [...new Set([...trustedUsersOf(live), ...users, ...this.rules.trustedUsers])];
      const tenantUsers = mergeTenantUsers(tenantUsersOf(live), tenants);
      const preventedKinds = [...new Set([...preventedKindsOf(live), ...kinds])];
      const [policy, binding] = preventionPolicy({ ...this.rules, trustedUsers: trusted, tenantUsers, preventedKinds });
      let written: 'created' | 'exists' | 'replaced' | 'conflict' | 'gone' | 'same';
      if (!live) written = await createObject(connection, policy);
      else if (stableStringify(live.spec) === stableStringify(policy.spec) && stableStringify(live.metadata.annotations ?? {}) === stableStringify({ ...live.metadata.annotations, ...policy.metadata.annotations })) written = 'same';
      else written = await replaceObject(connection, { ...policy, metadata: { ...policy.metadata, resourceVersion: live.metadata.resourceVersion } });
      if (written === 'exists' || written === 'conflict' || written === 'gone') continue;
      // The binding is the same on every replica: apply it whole.
      await applyObject(connection, binding);
      state.exists = true;
      state.trusted = new Set(trusted);
      state.tenants = tenantKeys(tenantUsers);
      state.kinds = new Set(preventedKinds);
      state.checkedAt = this.now();
      if (written !== 'same') this.options.log?.info({ cluster, trusted: trusted.length, tenants: Object.keys(tenantUsers).length }, 'drift-prevention admission policy written');
      return;
    }
    throw new Error('the policy kept changing under Tidemark (five conflicts in a row)');
  }

  private async release(cluster: string, state: ClusterState): Promise<void> {
    const connection = this.options.connectionFor(cluster);
    const live = await this.read(cluster, state);
    if (!live || await this.stillNeeded(connection, preventedKindsOf(live))) return;
    // Only what Tidemark made goes: both carry its managed-by label.
    for (const name of [bindingName, policyName]) {
      const object = await getObject(connection, name);
      if (object?.metadata.labels?.['app.kubernetes.io/managed-by'] !== 'tidemark') continue;
      // Preconditions: a policy rewritten since it was read (a replica applied a new prevented object) is kept.
      await deleteObject(connection, { group: 'admissionregistration.k8s.io', kind: name.kind, namespace: '', name: name.name },
        name === policyName ? { uid: object.metadata.uid as string, resourceVersion: object.metadata.resourceVersion as string } : { uid: object.metadata.uid as string });
    }
    state.exists = false;
    state.trusted = new Set();
    state.tenants = new Set();
    state.checkedAt = this.now();
    this.options.log?.info({ cluster }, 'no object needs drift prevention any more: its admission policy was removed');
  }

  /**
   * stillNeeded: some object of a kind the policy records still carries the prevent label. A kind
   * the reconciler may not list (only a tenant may) cannot be proven empty, so the policy stays.
   */
  private async stillNeeded(connection: ClusterConnection, kinds: readonly string[]): Promise<boolean> {
    for (const groupKind of kinds) {
      const slash = groupKind.indexOf('/');
      const group = groupKind.slice(0, slash);
      const kind = groupKind.slice(slash + 1);
      try {
        const resource = await connection.discovery.resourceForGroupKind(group, kind);
        const apiVersion = group === '' ? resource.version : `${group}/${resource.version}`;
        if (await anyLabelled(connection, apiVersion, kind, { [preventLabel]: 'true' })) return true;
      } catch (error) {
        if (error instanceof NotReadyError && error.code === 'KindNotServed') continue;
        if (error instanceof ApiError && error.isNotFound) continue;
        this.options.log?.warn({ cluster: connection.name, kind: groupKind, err: messageOf(error) }, 'cannot tell whether prevented objects remain; the drift-prevention policy stays');
        return true;
      }
    }
    return false;
  }
}

/** tenantKeys flattens tenants' namespaces to `user\0namespace` for lookups. */
function tenantKeys(tenants: Readonly<Record<string, readonly string[]>>): Set<string> {
  return new Set(Object.entries(tenants).flatMap(([user, namespaces]) => namespaces.map((namespace) => `${user}\0${namespace}`)));
}
