import { describe, expect, it } from 'vitest';
import { kubeVersionOf } from './capabilities';

describe('kubeVersionOf', () => {
  it('is the gitVersion of a released server, vendor suffixes kept (as helm reads it)', () => {
    expect(kubeVersionOf({ gitVersion: 'v1.31.2', major: '1', minor: '31' }, 'a')).toBe('v1.31.2');
    expect(kubeVersionOf({ gitVersion: 'v1.29.3-gke.1093000', major: '1', minor: '29+' }, 'a')).toBe('v1.29.3-gke.1093000');
  });

  it('is the emulated version of a server built from source, which reports v0.0.0', () => {
    expect(kubeVersionOf({ gitVersion: 'v0.0.0-master+$Format:%H$', major: '', minor: '', emulationMajor: '1', emulationMinor: '37' }, 'a')).toBe('v1.37.0');
    expect(kubeVersionOf({ gitVersion: 'v0.0.0-master+$Format:%H$', major: '1', minor: '30+' }, 'a')).toBe('v1.30.0');
  });

  it('says which cluster gave no version at all', () => {
    expect(() => kubeVersionOf({}, 'edge-1')).toThrow('cluster edge-1');
  });
});
