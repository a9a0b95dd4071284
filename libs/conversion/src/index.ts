// Owns: CRD versions at run time: the HTTPS conversion webhook the API servers call (the conversions
//   themselves are the kinds' pure functions), its CA and serving certificate with rotation and a store
//   replicas share, the conversion stanza of a CRD, the storage version migration, and installing the
//   built-in CRDs on each cluster and keeping them installed (builtin-crds.ts).
// Entry points: createConversionWebhook (the webhook as a part, its config section: conversionWebhookConfig),
//   ConversionWebhook, ConversionWebhookThread (the same served from a worker thread; its entry is
//   webhook-thread-main.ts, bundled beside the app's main.js), withConversion, rotateCertificates, migrateStorage, keepInstallingBuiltinCrds,
//   SecretCertificateStore.
// Records: none in Redis (the certificates live in a Kubernetes Secret).
// May import: @tidemark/contracts, @tidemark/kinds, @tidemark/cluster.

export { ConversionWebhook, conversionPath } from './conversion-webhook';
export { ConversionWebhookThread } from './webhook-thread';
export { withConversion, type CrdConversion } from './crd-conversion';
export { rotateCertificates } from './certificate-rotation';
export { migrateStorage, type StorageMigrationProgress } from './migrate-storage';
export { SecretCertificateStore } from './certificate-store';
export { installBuiltinCrds, keepInstallingBuiltinCrds, crdInstallerManager } from './builtin-crds';
export { createConversionWebhook, startConversionWebhook, type RunningConversionWebhook } from './webhook-service';
export { ConversionWebhookInput, conversionWebhookConfig, type ConversionWebhookConfig } from './webhook-config';
