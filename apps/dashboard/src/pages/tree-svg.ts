import { flattenTree, type TreeNode } from '../view/resource-tree';
import { html, type SafeHtml } from './html';

// Geometry of the drawing, in SVG user units (CSS pixels at scale 1).
const nodeWidth = 230;
const nodeHeight = 46;
const columnGap = 48;
const rowGap = 10;

const healthIcon: Record<TreeNode['health'], string> = { Ready: '✓', Progressing: '↻', Failed: '✕', Unknown: '?' };

interface Placed {
  node: TreeNode;
  x: number;
  y: number;
  parent?: Placed;
}

/** place lays the tree out left to right: leaves take rows in order, parents centre on their children. */
function place(root: TreeNode): { placed: Placed[]; rows: number; depth: number } {
  const placed: Placed[] = [];
  let row = 0;
  let maxDepth = 0;
  const visit = (node: TreeNode, depth: number, parent?: Placed): Placed => {
    maxDepth = Math.max(maxDepth, depth);
    const entry: Placed = { node, x: depth * (nodeWidth + columnGap), y: 0, ...(parent ? { parent } : {}) };
    placed.push(entry);
    if (node.children.length === 0) {
      entry.y = row * (nodeHeight + rowGap);
      row += 1;
    } else {
      const children = node.children.map((child) => visit(child, depth + 1, entry));
      entry.y = (children[0]!.y + children.at(-1)!.y) / 2;
    }
    return entry;
  };
  visit(root, 0);
  return { placed, rows: row, depth: maxDepth };
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function edge(entry: Placed): SafeHtml {
  if (!entry.parent) return html``;
  const fromX = entry.parent.x + nodeWidth;
  const fromY = entry.parent.y + nodeHeight / 2;
  const toY = entry.y + nodeHeight / 2;
  const middle = fromX + columnGap / 2;
  return html`<path class="tree-edge" d="M${fromX} ${fromY} H${middle} V${toY} H${entry.x}"/>`;
}

function box(entry: Placed): SafeHtml {
  const { node, x, y } = entry;
  // The box's <title> is its accessible name (SVG's rule) and its tooltip: the words drawn in it, in order, then the rest.
  const label = `${node.kind} ${node.sync} ${node.name}: ${node.health}${node.message ? `. ${node.message}` : ''}`;
  const drifted = node.sync === 'Drifted';
  return html`<a href="#${node.id}" class="tree-node health-${node.health.toLowerCase()}${drifted ? ' drifted' : ''}" data-node="${node.id}" data-kind="${node.kind}" data-health="${node.health}" data-sync="${node.sync}"><title>${label}</title>
<rect x="${x}" y="${y}" width="${nodeWidth}" height="${nodeHeight}" rx="6"/>
<circle cx="${x + 18}" cy="${y + nodeHeight / 2}" r="11"/><text aria-hidden="true" class="tree-icon" x="${x + 18}" y="${y + nodeHeight / 2 + 5}" text-anchor="middle">${healthIcon[node.health]}</text>
<text class="tree-kind" x="${x + 36}" y="${y + 17}">${node.kind}</text><text class="tree-sync" x="${x + nodeWidth - 8}" y="${y + 17}" text-anchor="end">${node.sync}</text>
<text class="tree-name" x="${x + 36}" y="${y + 35}">${truncate(node.name, 26)}</text></a>`;
}

/** treeSvg draws the resource tree as SVG; every box links to its row in the table under it. */
export function treeSvg(root: TreeNode): SafeHtml {
  const { placed, rows, depth } = place(root);
  const width = (depth + 1) * nodeWidth + depth * columnGap + 2;
  const height = rows * (nodeHeight + rowGap);
  return html`<div class="scroll tree-frame"><svg id="tree-svg" class="tree" width="${width}" height="${height}" viewBox="-1 -1 ${width} ${height}" aria-labelledby="tree-title">
<title id="tree-title">Resource tree of ${root.kind} ${root.name}: ${placed.length} objects; the table below lists the same.</title>
${placed.map(edge)}${placed.map(box)}</svg></div>`;
}

/** treeTable is the tree as text: each object with its owner, health, sync state and message. */
export function treeTable(root: TreeNode): SafeHtml {
  const rows = flattenTree(root);
  return html`<div class="scroll"><table id="tree-table"><caption class="visually-hidden">Objects in the resource tree</caption>
<tr><th scope="col">Object</th><th scope="col">Owned by</th><th scope="col">Health</th><th scope="col">Sync</th><th scope="col">Message</th></tr>
${rows.map(({ node, depth, parent }) => html`<tr id="${node.id}" class="tree-row${node.sync === 'Drifted' ? ' drifted' : ''}" data-kind="${node.kind}"><th scope="row">${'\u00a0\u00a0'.repeat(depth)}${node.kind} ${node.namespace ? `${node.namespace}/` : ''}${node.name}</th>
<td>${parent ? `${parent.kind} ${parent.name}` : '—'}</td><td><span class="health-text health-${node.health.toLowerCase()}">${healthIcon[node.health]} ${node.health}</span></td><td>${node.sync}</td><td>${node.message ?? ''}</td></tr>`)}</table></div>`;
}
