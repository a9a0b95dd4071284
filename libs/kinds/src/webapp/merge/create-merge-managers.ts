import { TerminalError } from '@tidemark/contracts';
import type { KubernetesManifest } from '../../kind-plugin';
import type { PlainObject } from '../../shared/plain-object';
import type { Components } from '../components';
import { mainContainerName } from '../webapp-types';
import type { MergeManagers, MetadataTarget } from './merge-managers';
import { formatPath, leavesOf, listAt, objectAt, setAt, upsertByKey, type FieldPath } from './object-paths';
import type { OwnershipLedger } from './ownership-ledger';
import type { EnvFromSource } from './pod-types';

const podSpecPath = ['spec', 'template', 'spec'];
const podTemplateMetadataPath = ['spec', 'template', 'metadata'];

/**
 * createMergeManagers binds the managers to one feature (`owner`): every write is claimed in
 * the shared ledger under that feature's id, then made on the components in place.
 */
export function createMergeManagers(components: Components, ledger: OwnershipLedger, owner: string): MergeManagers {
  const write = new ComponentWriter(components, ledger, owner);
  return {
    envVar: (envVar, container) => write.namedItem(write.containerPath(container, 'env'), 'name', envVar),
    envFrom: (source, container) => write.envFrom(source, container),
    volume: (volume) => write.namedItem({ component: 'deployment', path: [...podSpecPath, 'volumes'] }, 'name', volume),
    volumeMount: (mount, container) => write.namedItem(write.containerPath(container, 'volumeMounts'), 'mountPath', mount),
    containerPort: (port, container) => write.namedItem(write.containerPath(container, 'ports'), 'name', port),
    servicePort: (port) => write.namedItem({ component: 'service', path: ['spec', 'ports'] }, 'name', port),
    container: (container) => write.namedItem({ component: 'deployment', path: [...podSpecPath, 'containers'] }, 'name', container),
    annotation: (target, key, value) => write.metadataEntry(target, 'annotations', key, value),
    label: (target, key, value) => write.metadataEntry(target, 'labels', key, value),
    field: (component, path, value) => write.field(component, path, value),
  };
}

/** ListLocation is a list inside a component; `container` and `field` narrow it to one container's list. */
interface ListLocation {
  component: string;
  path: FieldPath;
  container?: string;
  field?: string;
}

class ComponentWriter {
  constructor(
    private readonly components: Components,
    private readonly ledger: OwnershipLedger,
    private readonly owner: string,
  ) {}

  containerPath(container: string | undefined, field: string): ListLocation {
    return { component: 'deployment', path: [...podSpecPath, 'containers'], container: container ?? mainContainerName, field };
  }

  namedItem(location: ListLocation, keyField: string, item: PlainObject): void {
    const key = item[keyField];
    this.ledger.claim(`${describeLocation(location)}[${String(key)}]`, item, this.owner);
    upsertByKey(this.listFor(location), keyField, item);
  }

  envFrom(source: EnvFromSource, container: string | undefined): void {
    const location = this.containerPath(container, 'envFrom');
    const key = envFromKey(source);
    this.ledger.claim(`${describeLocation(location)}[${key}]`, source, this.owner);
    const list = this.listFor(location);
    const index = list.findIndex((existing) => envFromKey(existing as EnvFromSource) === key);
    if (index < 0) {
      list.push(structuredClone(source));
    } else {
      list[index] = structuredClone(source);
    }
  }

  metadataEntry(target: MetadataTarget, field: 'annotations' | 'labels', key: string, value: string): void {
    const component = target === 'podTemplate' ? 'deployment' : target.component;
    const path = target === 'podTemplate' ? [...podTemplateMetadataPath, field] : ['metadata', field];
    this.ledger.claim(`${component}.${formatPath(path)}[${key}]`, value, this.owner);
    objectAt(this.component(component), path)[key] = value;
  }

  field(component: string, path: FieldPath, value: unknown): void {
    const manifest = this.component(component);
    for (const [leafPath, leafValue] of leavesOf(path, value)) {
      this.ledger.claim(`${component}.${formatPath(leafPath)}`, leafValue, this.owner);
      setAt(manifest, leafPath, leafValue);
    }
  }

  private listFor(location: ListLocation): PlainObject[] {
    const list = listAt(this.component(location.component), location.path);
    if (location.container === undefined || location.field === undefined) {
      return list;
    }
    const container = list.find((candidate) => candidate.name === location.container);
    if (!container) {
      throw new TerminalError('UnknownContainer', `Feature "${this.owner}" writes to container "${location.container}", which the Deployment does not have; add the container first.`);
    }
    return listAt(container, [location.field]);
  }

  private component(name: string): KubernetesManifest {
    const manifest = this.components.get(name);
    if (!manifest) {
      throw new TerminalError('UnknownComponent', `Feature "${this.owner}" writes to component "${name}", which is not rendered; list it in the feature's configure().`);
    }
    return manifest;
  }
}

function describeLocation(location: ListLocation): string {
  const list = `${location.component}.${formatPath(location.path)}`;
  return location.container === undefined ? list : `${list}[${location.container}].${location.field ?? ''}`;
}

function envFromKey(source: EnvFromSource): string {
  if (source.configMapRef) {
    return `configMap:${source.configMapRef.name}`;
  }
  return `secret:${source.secretRef?.name ?? ''}`;
}
