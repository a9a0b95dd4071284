import { describe, expect, it } from 'vitest';
import { parseAgentHeartbeat } from './agent-heartbeat';

describe('parseAgentHeartbeat', () => {
  it('reads a heartbeat, naming it by the key it was read from', () => {
    const raw = JSON.stringify({ cluster: 'other', version: '0.1.0', serverVersion: 'v1.31.2', lastSeen: '2026-12-06T13:00:00.000Z', ttlMs: 3000 });
    expect(parseAgentHeartbeat('edge-1', raw)).toEqual({ cluster: 'edge-1', version: '0.1.0', serverVersion: 'v1.31.2', lastSeen: '2026-12-06T13:00:00.000Z', ttlMs: 3000 });
  });

  it('takes a missing, unreadable or wrongly typed record as no heartbeat, and bounds what it shows', () => {
    expect(parseAgentHeartbeat('edge-1', null)).toBeUndefined();
    expect(parseAgentHeartbeat('edge-1', '{not json')).toBeUndefined();
    expect(parseAgentHeartbeat('edge-1', JSON.stringify({ version: 1, lastSeen: 'x', ttlMs: 1 }))).toBeUndefined();
    expect(parseAgentHeartbeat('edge-1', JSON.stringify({ version: '1', lastSeen: 'x', ttlMs: '3000' }))).toBeUndefined();
    const long = parseAgentHeartbeat('edge-1', JSON.stringify({ version: 'v'.repeat(10_000), serverVersion: 7, lastSeen: 'x', ttlMs: 1 }));
    expect(long?.version).toHaveLength(64);
    expect(long).not.toHaveProperty('serverVersion');
  });
});
