import type { KubernetesManifest } from '@tidemark/contracts';
import { conversionPath } from './conversion-webhook';

/** WebhookClientConfig says how the API servers reach the webhook: a URL, or a Service in their cluster. */
export type WebhookClientConfig = { url: string } | { service: { namespace: string; name: string; port: number; path?: string } };

/** CrdConversion is the webhook's address and the CA bundle the API servers must trust for it. */
export interface CrdConversion {
  clientConfig: WebhookClientConfig;
  /** base64 PEM, as ConversionWebhook.caBundle gives it. */
  caBundle: string;
}

type CrdSpec = { conversion?: { strategy?: string; webhook?: Record<string, unknown> } };

/** needsConversionWebhook: the CRD converts between its versions through a webhook. */
export function needsConversionWebhook(crd: KubernetesManifest): boolean {
  return (crd.spec as CrdSpec | undefined)?.conversion?.strategy === 'Webhook';
}

/**
 * withConversion points a CRD's conversion webhook at Tidemark's: the given address (the path
 * defaults to the webhook's) and the CA bundle. A CRD without a webhook strategy is returned as is.
 */
export function withConversion(crd: KubernetesManifest, conversion: CrdConversion): KubernetesManifest {
  if (!needsConversionWebhook(crd)) return crd;
  const spec = crd.spec as CrdSpec & Record<string, unknown>;
  const clientConfig = 'url' in conversion.clientConfig
    ? { url: conversion.clientConfig.url, caBundle: conversion.caBundle }
    : { service: { path: conversionPath, ...conversion.clientConfig.service }, caBundle: conversion.caBundle };
  return { ...crd, spec: { ...spec, conversion: { ...spec.conversion, webhook: { ...spec.conversion?.webhook, clientConfig } } } };
}
