import { describe, expect, it } from 'vitest';
import { agentAclRule } from './agent-acl';

describe('agentAclRule', () => {
  it('grants one cluster\'s tag read/write and the shared records read-only, and refuses the server-wide commands', () => {
    const rule = agentAclRule('east', { prefix: 'tm', hashTag: true });
    expect(rule.filter((word) => word.startsWith('%') || word.startsWith('~') || word.startsWith('&'))).toEqual([
      '%RW~{tm.east}*', '%R~{tm}:source:*', '%R~{tm}:schema', '%R~{tm}:records-lost', '&{tm}:status-changes', '&{tm}:tree-changes', '&{tm}:source-heads',
    ]);
    expect(rule.slice(0, 3)).toEqual(['resetkeys', 'resetchannels', '-@all']);
    for (const refused of ['-@dangerous', '-@admin', '-scan', '-function']) expect(rule).toContain(refused);
    expect(rule.indexOf('-@dangerous')).toBeGreaterThan(rule.indexOf('+@write'));
  });

  it('refuses a naming without per-cluster tags, and a name that is not a cluster\'s', () => {
    expect(() => agentAclRule('east', { prefix: 'tm' })).toThrow(/needs per-cluster hash tags/);
    expect(() => agentAclRule('east}*', { prefix: 'tm', hashTag: true })).toThrow(/cannot name a queue/);
  });

  it('refuses a cluster name or prefix with ACL glob characters or spaces, which would widen the rule', () => {
    for (const cluster of ['*', 'a*', 'a?', 'a[b]', 'a\\b', 'a b', ' a', '']) {
      expect(() => agentAclRule(cluster, { prefix: 'tm', hashTag: true }), cluster).toThrow(/cannot name a queue/);
    }
    for (const prefix of ['t*', 't?', 't[a]', 't\\m', '*']) {
      expect(() => agentAclRule('east', { prefix, hashTag: true }), prefix).toThrow(/cannot be held to an agent's ACL rule/);
    }
  });
});
