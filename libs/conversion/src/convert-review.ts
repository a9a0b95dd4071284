import { messageOf, type KubernetesManifest } from '@tidemark/contracts';
import type { KindRegistry } from '@tidemark/kinds';

/** ConversionReview is the apiextensions.k8s.io/v1 request and response of a conversion webhook. */
export interface ConversionReview {
  apiVersion: string;
  kind: 'ConversionReview';
  request?: { uid: string; desiredAPIVersion: string; objects: KubernetesManifest[] };
  response?: { uid: string; convertedObjects: KubernetesManifest[]; result: { status: 'Success' | 'Failure'; message?: string } };
}

/**
 * convertReview answers one ConversionReview with the kinds' pure conversions. The API server
 * needs every object back, in order, with the same uid; one object it cannot convert fails the
 * whole review with a message naming that object (the API server shows it to the client).
 */
export function convertReview(review: unknown, kinds: KindRegistry): ConversionReview {
  const request = (review as ConversionReview | undefined)?.request;
  if (!request || typeof request.uid !== 'string' || typeof request.desiredAPIVersion !== 'string' || !Array.isArray(request.objects)) {
    throw new Error('the body is not a ConversionReview with request.uid, request.desiredAPIVersion and request.objects');
  }
  const answer = (result: { status: 'Success' | 'Failure'; message?: string }, convertedObjects: KubernetesManifest[]): ConversionReview => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid: request.uid, convertedObjects, result },
  });
  try {
    return answer({ status: 'Success' }, request.objects.map((object) => convertOne(object, request.desiredAPIVersion, kinds)));
  } catch (error) {
    return answer({ status: 'Failure', message: messageOf(error) }, []);
  }
}

function convertOne(object: KubernetesManifest, desiredApiVersion: string, kinds: KindRegistry): KubernetesManifest {
  const plugin = kinds.pluginFor(object.apiVersion, object.kind);
  if (!plugin?.convert) {
    throw new Error(`${object.kind} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''} (${object.apiVersion}): Tidemark has no conversion for this kind and version`);
  }
  return plugin.convert(object, desiredApiVersion);
}
