import { describe, expect, it } from 'vitest';
import { alertSkipReason, matchesName } from './alert-filter';
import type { NotificationEvent } from './notification-event';
import type { NotificationAlert } from './notify-options';

const event: NotificationEvent = {
  id: 'e1', reason: 'NotReady', severity: 'error', message: 'WebApp shop/web on cluster prod-eu is not Ready (ApplyFailed): refused.',
  involvedObject: { kind: 'WebApp', namespace: 'shop', name: 'web' }, source: 'apps', cluster: 'prod-eu', timestamp: '2026-12-01T00:00:00.000Z',
};
const alert = (fields: Partial<NotificationAlert>): NotificationAlert => ({ name: 'a', providers: ['p'], severity: 'info', ...fields });

describe('alertSkipReason', () => {
  it('lets an event through an alert that names it, or names nothing', () => {
    expect(alertSkipReason(alert({}), event)).toBeUndefined();
    expect(alertSkipReason(alert({ severity: 'error', sources: ['apps'], clusters: ['prod-*'], kinds: ['WebApp'], namespaces: ['shop'], events: ['NotReady'] }), event)).toBeUndefined();
  });

  it('says why it skips: severity, reason, source, cluster, kind, namespace, exclusion', () => {
    expect(alertSkipReason(alert({ severity: 'error' }), { ...event, severity: 'info' })).toBe("severity info is below the alert's error");
    expect(alertSkipReason(alert({ events: ['Stalled'] }), event)).toBe('reason NotReady is not in events');
    expect(alertSkipReason(alert({ sources: ['infra'] }), event)).toBe('apps is not in sources');
    expect(alertSkipReason(alert({ clusters: ['staging-*'] }), event)).toBe('prod-eu is not in clusters');
    expect(alertSkipReason(alert({ kinds: ['ConfigWatcher'] }), event)).toBe('WebApp is not in kinds');
    expect(alertSkipReason(alert({ namespaces: ['billing'] }), event)).toBe('shop is not in namespaces');
    expect(alertSkipReason(alert({ exclusions: [/refused/] }), event)).toBe('the message matches an exclusion');
  });

  it('an event without the field passes only a wildcard (a cluster event has no source)', () => {
    const clusterEvent: NotificationEvent = { ...event, reason: 'ClusterUnavailable', involvedObject: { kind: 'Cluster', name: 'prod-eu' }, source: undefined };
    expect(alertSkipReason(alert({ sources: ['apps'] }), clusterEvent)).toBe('the event has no source');
    expect(alertSkipReason(alert({ sources: ['*'] }), clusterEvent)).toBeUndefined();
  });

  it('matchesName: * is any run of characters, the rest is literal', () => {
    expect(matchesName('prod-*', 'prod-eu')).toBe(true);
    expect(matchesName('prod.*', 'prodXeu')).toBe(false);
    expect(matchesName('web', 'webapp')).toBe(false);
  });
});
