/**
 * findCycles returns the strongly connected groups of a dependency graph that are cycles (two
 * or more members, or one that depends on itself), each in a stable order. Tarjan's algorithm,
 * iterative so a long chain cannot overflow the stack.
 */
export function findCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  for (const root of [...edges.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter); low.set(root, counter); counter += 1;
    stack.push(root); onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = (edges.get(frame.node) ?? []).filter((target) => edges.has(target));
      if (frame.next < targets.length) {
        const target = targets[frame.next]!;
        frame.next += 1;
        if (!index.has(target)) {
          index.set(target, counter); low.set(target, counter); counter += 1;
          stack.push(target); onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.node);
      const selfLoop = group.length === 1 && (edges.get(frame.node) ?? []).includes(frame.node);
      if (group.length > 1 || selfLoop) cycles.push(group.sort());
    }
  }
  return cycles;
}
