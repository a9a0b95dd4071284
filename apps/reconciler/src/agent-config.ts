/** AgentConfigInput is what checkAgentConfig reads of the config file. */
export interface AgentConfigInput {
  readonly clusters: readonly { readonly agent?: boolean }[];
  readonly sourceObjects?: { readonly enabled?: boolean };
  readonly agents?: { readonly heartbeatTtlMs?: number };
}

/** agentSettings checks an agent's file (see checkAgentConfig) and gives the heartbeat settings, for any role. */
export function agentSettings(input: AgentConfigInput, role: string, invalid: (field: string, message: string) => Error): { agents: { heartbeatTtlMs: number } } {
  if (role === 'agent') checkAgentConfig(input, invalid);
  return { agents: { heartbeatTtlMs: input.agents?.heartbeatTtlMs ?? 30_000 } };
}

/**
 * checkAgentConfig: an agent (TIDEMARK_ROLE=agent) serves the one cluster it runs in, so its file
 * lists exactly that cluster, with its own credentials; Source objects live in the hub's
 * management cluster. `invalid` makes the error for a field.
 */
export function checkAgentConfig(input: AgentConfigInput, invalid: (field: string, message: string) => Error): void {
  if (input.clusters.length !== 1) throw invalid('clusters', `an agent (TIDEMARK_ROLE=agent) serves one cluster; list only the cluster it runs in, not ${input.clusters.length}`);
  if (input.clusters[0]!.agent) throw invalid('clusters[0].agent', "the agent's own file gives its cluster's credentials (inCluster: true or kubeconfig); agent: true belongs in the hub's file");
  if (input.sourceObjects?.enabled) throw invalid('sourceObjects.enabled', 'an agent reads the sources of its file; Source objects are served by the hub');
}
