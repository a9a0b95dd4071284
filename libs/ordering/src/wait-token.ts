/** objectToken is the wait token of a Git or live object: woken when it is reconciled Ready. */
export function objectToken(objectKey: string): string {
  return `object:${objectKey}`;
}

/** crdToken is the wait token of the kind a CRD serves: woken when such a CRD is Established. */
export function crdToken(group: string, kind: string): string {
  return `crd:${group}/${kind}`;
}
