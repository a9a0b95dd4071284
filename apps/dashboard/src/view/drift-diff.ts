import { stringify } from 'yaml';
import type { DriftItem } from '@tidemark/contracts';

/** DiffLine is one row of a side-by-side diff: the same field on the Git side and the live side. */
export interface DiffLine {
  /** Nesting depth, for indentation. */
  depth: number;
  /** YAML text of the Git side, '' where that side has no line here. */
  desired: string;
  live: string;
  /** True on the lines of a drifted field; parent keys around them are context. */
  changed: boolean;
  /** JSON pointer of the drifted field (changed lines only). */
  path?: string;
  /** Field manager that wrote the live value (changed lines only). */
  manager?: string;
}

/** ObjectDiff is the side-by-side diff of one drifted object. */
export interface ObjectDiff {
  /** `Kind namespace/name`, or undefined for the object itself. */
  object?: string;
  lines: DiffLine[];
  detectedAt: string;
}

interface FieldNode {
  children: Map<string, FieldNode>;
  item?: DriftItem;
}

/** pointerSegments splits a JSON pointer into its unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  return pointer.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/**
 * buildObjectDiffs turns drift items (field path, desired, live, manager) into YAML fragments
 * of each drifted object, side by side: the keys leading to each drifted field as context and
 * the field's value on both sides, padded so the two sides line up. The store holds no object
 * bodies, so only the drifted fields and their parents are shown, never the whole object.
 */
export function buildObjectDiffs(items: readonly DriftItem[]): ObjectDiff[] {
  const byObject = new Map<string, DriftItem[]>();
  for (const item of items) {
    const key = item.object ?? '';
    byObject.set(key, [...(byObject.get(key) ?? []), item]);
  }
  return [...byObject].map(([object, drifted]) => {
    const root: FieldNode = { children: new Map() };
    for (const item of drifted) insert(root, pointerSegments(item.path), item);
    const lines: DiffLine[] = [];
    emit(root, 0, lines);
    const detectedAt = drifted.map((item) => item.detectedAt).sort().at(-1) ?? '';
    return object ? { object, lines, detectedAt } : { lines, detectedAt };
  });
}

function insert(node: FieldNode, segments: readonly string[], item: DriftItem): void {
  let current = node;
  for (const segment of segments) {
    let next = current.children.get(segment);
    if (!next) current.children.set(segment, (next = { children: new Map() }));
    current = next;
  }
  current.item = item;
}

function keyText(segment: string): string {
  return /^\d+$/.test(segment) ? `[${segment}]` : segment;
}

function emit(node: FieldNode, depth: number, lines: DiffLine[]): void {
  for (const [segment, child] of node.children) {
    const key = keyText(segment);
    if (child.item) {
      lines.push(...fieldLines(key, child.item, depth));
      continue;
    }
    lines.push({ depth, desired: `${key}:`, live: `${key}:`, changed: false });
    emit(child, depth + 1, lines);
  }
}

/** fieldLines renders one drifted field on both sides, padded to the same number of lines. */
function fieldLines(key: string, item: DriftItem, depth: number): DiffLine[] {
  const desired = valueLines(key, item.desired);
  const live = valueLines(key, item.live);
  const count = Math.max(desired.length, live.length);
  return Array.from({ length: count }, (_, index) => ({
    depth, desired: desired[index] ?? '', live: live[index] ?? '', changed: true, path: item.path, manager: item.manager,
  }));
}

/** valueLines renders `key: value` as YAML lines; an absent value says so. */
export function valueLines(key: string, value: unknown): string[] {
  if (value === undefined) return [`${key}: (absent)`];
  const text = stringify({ [key]: value }, { lineWidth: 0 }).trimEnd();
  const lines = text.split('\n');
  return lines.length > 200 ? [...lines.slice(0, 200), '…'] : lines;
}
