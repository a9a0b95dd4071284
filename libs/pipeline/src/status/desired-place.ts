import type { ObjectStatus } from '@tidemark/contracts';
import type { DesiredObject } from '../dependencies';

/** desiredPlace is where Git declares an object, for its status: file and line, or its render unit. */
export function desiredPlace(desired: DesiredObject | undefined): Pick<ObjectStatus, 'path' | 'line' | 'renderUnit'> {
  if (!desired) return {};
  return { path: desired.path, line: desired.line, ...(desired.unit ? { renderUnit: desired.unit } : {}) };
}
