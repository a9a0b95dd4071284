import type { PlainObject } from '../../shared/plain-object';
import type { EnvVar } from '../webapp-types';

export type { EnvVar };

/** The parts of Kubernetes pod and service types that merge managers handle, keyed by name. */
export type EnvFromSource = { configMapRef?: { name: string }; secretRef?: { name: string }; prefix?: string };
export type Volume = { name: string } & PlainObject;
export type VolumeMount = { name: string; mountPath: string; readOnly?: boolean; subPath?: string };
export type ContainerPort = { name: string; containerPort: number; protocol?: 'TCP' | 'UDP' | 'SCTP' };
export type ServicePort = { name: string; port: number; targetPort?: string | number; protocol?: 'TCP' | 'UDP' | 'SCTP' };
export type Container = { name: string; image: string } & PlainObject;
