import { describe, expect, it } from 'vitest';
import { dependenciesToFetch } from './chart-dependencies';
import { ChartRepositories } from './chart-repositories';

const repositories = new ChartRepositories({ repositories: [{ url: 'https://charts.example.com/stable/' }], cacheDir: '/nonexistent' });
const chart = (dependencies: string) => `apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n${dependencies}`;
const path = 'apps/shop/Chart.yaml';

describe('dependenciesToFetch', () => {
  it('returns a dependency of a configured repository pinned exactly, and skips vendored ones', () => {
    const text = chart('  - {name: web, version: 1.2.3, repository: "https://charts.example.com/stable"}\n  - {name: cache, version: 2.0.0, repository: "https://elsewhere.example.com"}\n');
    const fetch = dependenciesToFetch(text, path, ['cache-2.0.0.tgz'], repositories);
    expect(fetch.map((reference) => [reference.name, reference.version, reference.repository.base.href])).toEqual([['web', '1.2.3', 'https://charts.example.com/stable/']]);
  });

  it('refuses a range or a missing version, naming the file and dependency', () => {
    expect(() => dependenciesToFetch(chart('  - {name: web, version: "~1.2.0", repository: "https://charts.example.com/stable"}\n'), path, [], repositories))
      .toThrow('apps/shop/Chart.yaml: dependency "web": version "~1.2.0" is not an exact version; pin one (e.g. 1.2.3)');
    expect(() => dependenciesToFetch(chart('  - {name: web, repository: "https://charts.example.com/stable"}\n'), path, [], repositories))
      .toThrow('apps/shop/Chart.yaml: dependency "web": version is missing');
  });

  it('refuses a repository that is not configured, and OCI registries', () => {
    expect(() => dependenciesToFetch(chart('  - {name: web, version: 1.0.0, repository: "https://other.example.com"}\n'), path, [], repositories))
      .toThrow(/dependency "web" from https:\/\/other.example.com is not vendored in charts\/, and no chart repository of render.chartRepositories has that URL/);
    expect(() => dependenciesToFetch(chart('  - {name: web, version: 1.0.0, repository: "oci://registry.example.com/charts"}\n'), path, [], repositories))
      .toThrow(/comes from the OCI registry oci:\/\/registry.example.com\/charts, which Tidemark does not download from/);
    expect(() => dependenciesToFetch(chart('  - {name: web, version: 1.0.0, repository: "https://charts.example.com/stable"}\n'), path, [], undefined))
      .toThrow(/is not vendored in charts\//);
  });

  it('refuses a name that could name a path', () => {
    expect(() => dependenciesToFetch(chart('  - {name: ../web, version: 1.0.0, repository: "https://charts.example.com/stable"}\n'), path, [], repositories))
      .toThrow('may hold only letters');
  });
});

describe('ChartRepositories', () => {
  it('refuses plain http except on loopback, and credentials in the URL', () => {
    expect(() => new ChartRepositories({ repositories: [{ url: 'http://charts.example.com' }], cacheDir: '/x' })).toThrow('over https (plain http only on loopback)');
    expect(() => new ChartRepositories({ repositories: [{ url: 'https://user:pw@charts.example.com' }], cacheDir: '/x' })).toThrow('carries credentials in the URL');
    expect(new ChartRepositories({ repositories: [{ url: 'http://127.0.0.1:8080/charts' }], cacheDir: '/x' }).find('http://127.0.0.1:8080/charts/')).toBeDefined();
  });
});
