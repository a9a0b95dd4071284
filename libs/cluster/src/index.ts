// Owns: all Kubernetes I/O: the HTTP client, discovery, server-side apply and its change sets (one file per
//   verb), dry-run, reads, watches and the watch cache, events, finalizers, and the one mapping of API
//   errors to the three failure kinds. Nothing else in Tidemark talks to an API server.
// Entry points: ClusterConnection, CapabilitiesCache, applyObject, applyChangeSet, dryRunObject, getObject,
//   listObjects, deleteObject, watchObjects, ObjectCache, readPodLog, toReconcileFailure.
// Records: none (it keeps nothing in Redis).
// May import: @tidemark/contracts.

export { ApiError, toReconcileFailure } from './api-error';
export { cleanApiMessage } from './api-message';
export { KubeClient, kubeUserAgent, type KubeClientOptions, type KubeRequest } from './kube-client';
export { readCapabilities } from './capabilities';
export { CapabilitiesCache } from './capabilities-cache';
export { loadSelfContainedKubeconfig } from './kubeconfig-guard';
export { ClusterConnection } from './connection';
export { resourcePath, type ApiResource } from './resource-path';
export { getObject, getByResource, listObjects, anyLabelled } from './read';
export { listOwnerLabelled } from './owner-labelled';
export { applyObject, describe } from './apply';
export { dryRunObject } from './dry-run';
export { applyChangeSet, applyWithChangeSet, recreateAnnotation, type ChangeSetEntry, type ChangeSetOptions, type KnownState } from './change-set';
export { deleteObject, type ObjectIdentity } from './delete';
export { applyStatus } from './status';
export { recordEvent, type EventInput } from './events';
export { waitForEstablished } from './wait';
export { removeFinalizer } from './finalizer';
export { watchObjects, type RunningWatch, type WatchEventType, type WatchProgress } from './watch';
export { ObjectCache, type CacheAnswer, type ObjectCacheOptions } from './object-cache';
export { trimManagedFields } from './trim-managed-fields';
export { sameObject } from './compare';
export { crdVersions, listPage, rewriteObject, setStoredVersions, type CrdVersions } from './storage-version';
export { createObject, replaceObject } from './write';
export { countCustomResources } from './crd-instances';
export { foreignObjectsIn } from './namespace-contents';
export { mayDo } from './access-review';
export { ownUsername } from './self-review';
export { readPodLog } from './pod-log';
