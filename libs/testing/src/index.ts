export { freePort } from './free-port';
export { RigError, commandExists, run, stopProcess } from './process';
export { startRedis, waitForPort, type TestRedis, type StartRedisOptions } from './redis';
export { startGitServer, type GitServer, type GitServerOptions } from './git-server';
export { WorkingCopy } from './working-copy';
export {
  buildKubeTestenv, startControlPlane, startControlPlanes, kubectl, kubeTestenvBinary,
  type ControlPlane, type StartControlPlaneOptions,
} from './kube-testenv';
export { startDelayingProxy, startDelayingProxyProcess, type DelayingProxy } from './delaying-proxy';
export { buildGoProgram, type GoProgram } from './go-build';
export { sendGithubPush } from './github-push';
