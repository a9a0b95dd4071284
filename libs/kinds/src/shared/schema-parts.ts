import { Type } from '@sinclair/typebox';

/**
 * intOrString is a count or a quantity ("25%", "500m"): int-or-string in the CRD, with the anyOf
 * kubebuilder writes beside the marker; the runtime check takes an integer or a string.
 */
export const intOrString = (description?: string) => Type.Union([Type.Integer(), Type.String()], { 'x-kubernetes-int-or-string': true, ...(description ? { description } : {}) });

/** freeFormObject is an object of any fields, kept as written (x-kubernetes-preserve-unknown-fields). */
export const freeFormObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { 'x-kubernetes-preserve-unknown-fields': true, description });
