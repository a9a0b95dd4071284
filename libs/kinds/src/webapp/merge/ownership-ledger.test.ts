import { TerminalError } from '@tidemark/contracts';
import { describe, expect, it } from 'vitest';
import { OwnershipLedger } from './ownership-ledger';

function conflictOf(action: () => void): TerminalError {
  try {
    action();
  } catch (error) {
    if (error instanceof TerminalError) {
      return error;
    }
  }
  throw new Error('expected a TerminalError');
}

describe('OwnershipLedger', () => {
  it('accepts the same value from two features', () => {
    const ledger = new OwnershipLedger();
    ledger.claim('deployment.env[PORT]', { name: 'PORT', value: '80' }, 'a');
    expect(() => ledger.claim('deployment.env[PORT]', { value: '80', name: 'PORT' }, 'b')).not.toThrow();
  });

  it('rejects a different value from another feature, naming both features and the key', () => {
    const ledger = new OwnershipLedger();
    ledger.claim('deployment.env[PORT]', '80', 'metrics');
    const error = conflictOf(() => ledger.claim('deployment.env[PORT]', '90', 'sidecar'));
    expect(error.code).toBe('FeatureConflict');
    expect(error.message).toBe('Features "metrics" and "sidecar" both write deployment.env[PORT] with different values ("80" vs "90"); disable one of them or change its settings.');
  });

  it('lets a feature rewrite its own key', () => {
    const ledger = new OwnershipLedger();
    ledger.claim('hpa.spec.minReplicas', 1, 'a');
    expect(() => ledger.claim('hpa.spec.minReplicas', 2, 'a')).not.toThrow();
  });

  it('rejects a write inside or around another feature\'s key', () => {
    const ledger = new OwnershipLedger();
    ledger.claim('hpa.spec.metrics', [], 'a');
    expect(conflictOf(() => ledger.claim('hpa.spec.metrics.x', 1, 'b')).message).toContain('hpa.spec.metrics and hpa.spec.metrics.x');
    expect(conflictOf(() => ledger.claim('hpa.spec', 1, 'b')).code).toBe('FeatureConflict');
  });

  it('does not confuse keys that only share a prefix', () => {
    const ledger = new OwnershipLedger();
    ledger.claim('deployment.env[PORT]', '80', 'a');
    expect(() => ledger.claim('deployment.env[PORTS]', '90', 'b')).not.toThrow();
  });

  it('treats a removal as a value: removing and setting the same field conflict', () => {
    const ledger = new OwnershipLedger();
    ledger.claim('deployment.spec.replicas', undefined, 'autoscaling');
    expect(conflictOf(() => ledger.claim('deployment.spec.replicas', 3, 'fixed')).message).toContain('(<removed> vs 3)');
  });
});
