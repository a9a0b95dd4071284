import { describe, expect, it } from 'vitest';
import { TerminalError } from '@tidemark/contracts';
import { configWatcherPlugin } from '../configwatcher/configwatcher-plugin';
import { webAppPlugin } from '../webapp/webapp-plugin';
import { parseCustomResource } from './parse-custom-resource';

const webApp = (spec: unknown) => ({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'shop', namespace: 'web' }, spec });

describe('parseCustomResource', () => {
  it('returns the CR with its spec when the spec fits the kind, unknown fields of features included', () => {
    const object = webApp({ image: 'shop:1', features: { autoscaling: { enabled: true, maxReplicas: 5 } } });
    expect(parseCustomResource(webAppPlugin, object, 'apps/shop.yaml')).toEqual(object);
  });

  it('refuses a spec that does not fit, naming the file, the object and the field', () => {
    const parse = () => parseCustomResource(webAppPlugin, webApp({ image: 'shop:1', replicas: 'three' }), 'apps/shop.yaml');
    expect(parse).toThrow(TerminalError);
    expect(parse).toThrow(/^apps\/shop\.yaml: WebApp shop: spec\.replicas /);
    const watcher = { apiVersion: 'k8spatterns.com/v1', kind: 'ConfigWatcher', metadata: { name: 'cw' }, spec: { podSelector: {} } };
    expect(() => parseCustomResource(configWatcherPlugin, watcher, 'cw.yaml')).toThrow(/cw\.yaml: ConfigWatcher cw: spec/);
  });
});
