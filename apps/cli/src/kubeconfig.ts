import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { messageOf } from '@tidemark/contracts';
import { CliError, ExitCode } from './cli-error';
import type { Environment } from './config';

/** kubeconfigPathOf is the kubeconfig a command uses: --kubeconfig, else the first of KUBECONFIG, else ~/.kube/config. */
export function kubeconfigPathOf(path: string | undefined, env: Environment): string {
  return path ?? env.KUBECONFIG?.split(delimiter).find(Boolean) ?? join(env.HOME ?? homedir(), '.kube', 'config');
}

/** loadKubeconfig reads the kubeconfig a command uses; a file that cannot be read is a usage error naming it. */
export function loadKubeconfig(path: string | undefined, env: Environment): KubeConfig {
  const file = kubeconfigPathOf(path, env);
  const config = new KubeConfig();
  try {
    config.loadFromString(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError('KubeconfigUnreadable', `cannot load the kubeconfig ${file}: ${messageOf(error)}`, ExitCode.Usage);
  }
  return config;
}

/** withContext is a copy of the kubeconfig with another current context; an unknown context is a usage error. */
export function withContext(config: KubeConfig, context: string | undefined): KubeConfig {
  const copy = new KubeConfig();
  copy.loadFromString(config.exportConfig());
  if (context === undefined) return copy;
  if (!copy.getContextObject(context)) {
    throw new CliError('ContextNotFound', `the kubeconfig has no context "${context}"; its contexts are ${copy.getContexts().map((entry) => entry.name).join(', ') || 'none'}`, ExitCode.Usage);
  }
  copy.setCurrentContext(context);
  return copy;
}
