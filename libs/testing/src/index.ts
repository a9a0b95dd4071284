// Owns: the test rig's helpers: a redis-server, the kube-testenv control planes, a Git server over smart
//   HTTP, an OpenSSH sshd serving Git, a CNCF distribution registry with oras, working copies, a delaying
//   proxy, the podman run of a Pod's container (containerRunOf). Test and bench code only.
// Entry points: startRedis, startGitServer, WorkingCopy, startAppProcess.
// Records: none.
// May import: no other Tidemark library.

export { freePort } from './free-port';
export { containerRunOf, volumeFilesOf, type RunnablePod, type PodObjects, type ContainerRun } from './pod-container-run';
export { buildAppBundles, type AppBundles } from './app-bundles';
export { startAppProcess, killAppProcess, type AppProcess } from './app-process';
export { run, stopProcess } from './process';
export { startRedis, waitForPort, type TestRedis } from './redis';
export { makeTestCa, type TestCa, type IssuedCertificate } from './test-ca';
export { startRedisCluster, startRedisSentinel, type TestRedisCluster, type TestRedisSentinel, type RedisHostPort, type RedisAuth } from './redis-topologies';
export { startGitServer, type GitServer } from './git-server';
export { WorkingCopy } from './working-copy';
export { startSshGitServer, type SshGitServer, type SshKeyPair } from './ssh-git-server';
export { startGitHubAppServer, type GitHubAppServer } from './github-app-server';
export { buildKubeTestenv, buildKubeControllers, startControlPlane, startControlPlanes, kubectl, kubeTestenvBinary, type ControlPlane } from './kube-testenv';
export { markAuditLog, readAuditLog, countByKind, appliesByName, type AuditedRequest, type AuditLogMark } from './audit-log';
export { startDelayingProxyProcess, type DelayingProxy } from './delaying-proxy';
export { buildGoProgram } from './go-build';
export { sendGithubPush } from './github-push';
export { buildRenderTools, renderToolsDir } from './render-tools';
export { buildGitea, startGitea, type TestGitea, type GiteaRepository } from './gitea';
export { buildOciRegistry, startOciRegistry, type TestOciRegistry } from './oci-registry';
export { buildJaeger, startJaeger, type TestJaeger, type JaegerTrace, type JaegerSpan } from './jaeger';
