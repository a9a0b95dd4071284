import type { KindPlugin } from '../kind-plugin';
import { applyWebAppDefaults, enabledWebAppFeatures } from './apply-webapp-defaults';
import { webAppCrd } from './crd/webapp-crd';
import { webAppFeatures } from './features/index';
import type { WebAppFeature } from './features/webapp-feature';
import { observeWebAppStatus, type WebAppStatus } from './observe-webapp-status';
import { renderWebApp } from './render/render-webapp';
import { convertWebApp, webAppSpecOf } from './versions/convert-webapp-version';
import { webAppSpecType } from './webapp-spec-type';
import { webAppGroup, webAppKind, webAppPlural, webAppStorageVersion, webAppVersion, webAppVersionV1alpha1, type WebAppSpec } from './webapp-types';

/**
 * createWebAppPlugin builds the WebApp kind for a feature list. The CRD, the enabled
 * features and render all come from that list, so extra features need no change here.
 */
export function createWebAppPlugin(features: readonly WebAppFeature[] = webAppFeatures): KindPlugin<WebAppSpec, WebAppStatus> {
  return {
    group: webAppGroup,
    version: webAppVersion,
    kind: webAppKind,
    plural: webAppPlural,
    crd: webAppCrd(features),
    servedVersions: [webAppStorageVersion, webAppVersionV1alpha1],
    convert: convertWebApp,
    specOf: webAppSpecOf,
    specType: webAppSpecType,
    applyDefaults: applyWebAppDefaults,
    enabledFeatures: (spec) => enabledWebAppFeatures(spec, features),
    render: (context) => renderWebApp(context, features),
    observeStatus: observeWebAppStatus,
  };
}

/** webAppPlugin is the WebApp kind with the built-in features. */
export const webAppPlugin = createWebAppPlugin();
