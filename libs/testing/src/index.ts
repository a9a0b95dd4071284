// Owns: the test rig's helpers: a redis-server, the kube-testenv control planes, a Git server over smart
//   HTTP, an OpenSSH sshd serving Git, a CNCF distribution registry with oras, working copies, a delaying
//   proxy, the podman run of a Pod's container (containerRunOf). Test and bench code only.
// Entry points: startRedis, startGitServer, WorkingCopy, startAppProcess.
// Records: none.
// May import: no other Tidemark library.

export { freePort } from './free-port';
export { containerRunOf, volumeFilesOf, PodRunError, type RunnablePod, type RunnableContainer, type PodVolume, type PodObjects, type VolumeFiles, type ContainerRunOptions, type ContainerRun } from './pod-container-run';
export { buildAppBundles, type AppBundles } from './app-bundles';
export { startAppProcess, killAppProcess, type AppProcess, type AppProcessOptions } from './app-process';
export { RigError, commandExists, run, stopProcess } from './process';
export { startRedis, waitForPort, redisTlsArgs, type TestRedis, type StartRedisOptions, type RedisServerTls } from './redis';
export { makeTestCa, type TestCa, type IssuedCertificate } from './test-ca';
export { startRedisCluster, startRedisSentinel, type SentinelTls, type TestRedisCluster, type TestRedisSentinel, type RedisHostPort, type RedisAuth } from './redis-topologies';
export { startGitServer, type GitServer, type GitServerOptions } from './git-server';
export { WorkingCopy } from './working-copy';
export { startSshGitServer, type SshGitServer, type SshKeyPair, type SshKeyType } from './ssh-git-server';
export { startGitHubAppServer, type GitHubAppServer, type GitHubAppServerOptions, type GitHubAppInstallation, type MintedToken } from './github-app-server';
export {
  buildKubeTestenv, buildKubeControllers, startControlPlane, startControlPlanes, kubectl, kubeTestenvBinary, kubeControllersBinary,
  type ControlPlane, type ControllerOptions, type StartControlPlaneOptions,
} from './kube-testenv';
export { markAuditLog, readAuditLog, requestKind, countByKind, appliesByName, type AuditedRequest, type AuditLogMark } from './audit-log';
export { startDelayingProxy, startDelayingProxyProcess, type DelayingProxy } from './delaying-proxy';
export { buildGoProgram, type GoProgram } from './go-build';
export { sendGithubPush } from './github-push';
export { buildRenderTools, renderToolsDir } from './render-tools';
export { buildGitea, giteaBinary, startGitea, type TestGitea, type GiteaRepository } from './gitea';
export { buildOciRegistry, startOciRegistry, orasBinary, registryBinary, type TestOciRegistry, type StartOciRegistryOptions } from './oci-registry';
export { buildJaeger, jaegerBinary, startJaeger, type TestJaeger, type JaegerTrace, type JaegerSpan } from './jaeger';
