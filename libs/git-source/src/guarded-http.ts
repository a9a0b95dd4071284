import http from 'isomorphic-git/http/node';
import type { HttpClient, GitHttpRequest, GitHttpResponse } from 'isomorphic-git';
import type { PackSizeGuard } from './pack-size-guard';

/**
 * guardedHttp is isomorphic-git's Node HTTP client with the guard reading every upload-pack
 * response as it streams: the guard throws from inside the body, so isomorphic-git never
 * collects, inflates or indexes a refused pack.
 */
export function guardedHttp(guard: PackSizeGuard, base: HttpClient = http): HttpClient {
  return {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const response = await base.request(request);
      if (!request.url.endsWith('/git-upload-pack') || !response.body) return response;
      return { ...response, body: watched(response.body, guard) };
    },
  };
}

async function* watched(body: AsyncIterableIterator<Uint8Array>, guard: PackSizeGuard): AsyncIterableIterator<Uint8Array> {
  for await (const chunk of body) {
    guard.observe(chunk);
    yield chunk;
  }
  guard.finish();
}
