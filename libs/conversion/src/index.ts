export { ConversionWebhook, conversionPath, type ConversionWebhookOptions } from './conversion-webhook';
export { convertReview, type ConversionReview } from './convert-review';
export { withConversion, needsConversionWebhook, type CrdConversion, type WebhookClientConfig } from './crd-conversion';
export { rotateCertificates, caBundleOf, defaultRotationPolicy, type RotationPolicy, type RotationStep, type CertificateState } from './certificate-rotation';
export { createCertificateAuthority, issueServingCertificate, validityOf, type KeyPairPem, type WebhookCertificates } from './webhook-certificates';
export { migrateStorage, type StorageMigrationOptions, type StorageMigrationProgress, type StorageMigrationResult } from './migrate-storage';
export { SecretCertificateStore, MemoryCertificateStore, type CertificateStore, type StoredCertificates } from './certificate-store';
