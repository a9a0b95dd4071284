import type { FieldPath } from './object-paths';
import type { Container, ContainerPort, EnvFromSource, EnvVar, ServicePort, Volume, VolumeMount } from './pod-types';

/** MetadataTarget is a component's own metadata, or the Deployment's pod template. */
export type MetadataTarget = { component: string } | 'podTemplate';

/**
 * MergeManagers is the only way a feature changes the rendered objects. Every call is keyed
 * (env var by name, volume by name, mount by mountPath, port by name, annotation by key,
 * field by path) and recorded against the calling feature, so two features that write the
 * same key differently fail with FeatureConflict instead of one silently winning. Pod-level
 * calls address the Deployment's pod template; `container` defaults to the app container.
 */
export interface MergeManagers {
  envVar(envVar: EnvVar, container?: string): void;
  /** envFrom is keyed by the ConfigMap or Secret it refers to. */
  envFrom(source: EnvFromSource, container?: string): void;
  volume(volume: Volume): void;
  /** volumeMount is keyed by mountPath, Kubernetes' own merge key for mounts. */
  volumeMount(mount: VolumeMount, container?: string): void;
  containerPort(port: ContainerPort, container?: string): void;
  servicePort(port: ServicePort): void;
  /** container adds a whole container (a sidecar), keyed by name. */
  container(container: Container): void;
  annotation(target: MetadataTarget, key: string, value: string): void;
  label(target: MetadataTarget, key: string, value: string): void;
  /**
   * field writes any other field of a component, e.g. the HPA's spec; objects are split into
   * leaves so features may share an object. `undefined` removes the field, and that removal
   * is owned too (autoscaling removing `deployment.spec.replicas`).
   */
  field(component: string, path: FieldPath, value: unknown): void;
}
