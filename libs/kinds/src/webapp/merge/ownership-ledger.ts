import { TerminalError } from '@tidemark/contracts';
import { Reason } from '@tidemark/contracts';
import { deepEqual } from '../../shared/deep-equal';
import { stableStringify } from '@tidemark/contracts';

interface Claim {
  owner: string;
  value: unknown;
}

/**
 * OwnershipLedger remembers which feature wrote each key during one render. Writing a key
 * another feature wrote with a different value is a FeatureConflict; the same value is fine,
 * so features may agree without knowing of each other. Keys are paths such as
 * `deployment.spec.template.spec.containers[app].env[PORT]`; a write to a path inside or
 * around another feature's path (`hpa.spec` vs `hpa.spec.minReplicas`) also conflicts,
 * because one of them would silently replace the other.
 */
export class OwnershipLedger {
  private readonly claims = new Map<string, Claim>();

  /** claim records that `owner` writes `value` at `key`, or throws FeatureConflict. */
  claim(key: string, value: unknown, owner: string): void {
    const existing = this.claims.get(key);
    if (existing && existing.owner !== owner && !deepEqual(existing.value, value)) {
      throw conflict(key, existing, { owner, value });
    }
    const overlapping = this.overlappingClaim(key, owner);
    if (overlapping) {
      throw conflict(overlapping.key, overlapping.claim, { owner, value }, key);
    }
    this.claims.set(key, existing && existing.owner !== owner ? existing : { owner, value });
  }

  private overlappingClaim(key: string, owner: string): { key: string; claim: Claim } | undefined {
    for (const [otherKey, claim] of this.claims) {
      if (claim.owner !== owner && otherKey !== key && (isInside(key, otherKey) || isInside(otherKey, key))) {
        return { key: otherKey, claim };
      }
    }
    return undefined;
  }
}

function isInside(inner: string, outer: string): boolean {
  return inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
}

function conflict(key: string, first: Claim, second: Claim, secondKey = key): TerminalError {
  const where = secondKey === key ? key : `${key} and ${secondKey}`;
  return new TerminalError(
    Reason.FeatureConflict,
    `Features "${first.owner}" and "${second.owner}" both write ${where} with different values (${describeValue(first.value)} vs ${describeValue(second.value)}); disable one of them or change its settings.`,
  );
}

function describeValue(value: unknown): string {
  const text = value === undefined ? '<removed>' : stableStringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
