import http from 'isomorphic-git/http/node';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';

/** How long a recorded ref advertisement may stand in for the fetch's own discovery. */
const replayWithinMs = 5_000;

interface Recorded {
  url: string;
  headers: string;
  at: number;
  response: Omit<GitHttpResponse, 'body'>;
  chunks: Uint8Array[];
}

/**
 * AdvertisementReplay saves a poll one request. A poll asks the server for its refs (one GET of
 * info/refs), then fetches the new commit, and isomorphic-git's fetch starts with the very same
 * GET. `recording` keeps the poll's answer; `replaying` hands it, once, to the fetch that follows
 * within a few seconds with the same URL and headers, so the fetch wants exactly the commit the
 * poll saw. Anything else (another URL, a POST, a second discovery, a late one) goes to the server.
 */
export class AdvertisementReplay {
  private recorded: Recorded | undefined;

  constructor(private readonly base: HttpClient = http, private readonly now: () => number = Date.now) {}

  /** recording is the HTTP client of a ref listing: it keeps the discovery answer it gets. */
  recording(): HttpClient {
    return {
      request: async (request: GitHttpRequest): Promise<GitHttpResponse> => {
        const response = await this.base.request(request);
        if (!isDiscovery(request) || response.statusCode !== 200 || !response.body) return response;
        const chunks: Uint8Array[] = [];
        for await (const chunk of response.body) chunks.push(chunk);
        const { body: _body, ...rest } = response;
        this.recorded = { url: request.url, headers: headerKey(request), at: this.now(), response: rest, chunks };
        return { ...rest, body: replayBody(chunks) };
      },
    };
  }

  /** replaying wraps a fetch's HTTP client: its discovery may be answered by the recorded one. */
  replaying(client: HttpClient): HttpClient {
    return {
      request: (request: GitHttpRequest): Promise<GitHttpResponse> => {
        const recorded = this.recorded;
        this.recorded = undefined;
        if (recorded && isDiscovery(request) && recorded.url === request.url && recorded.headers === headerKey(request) && this.now() - recorded.at <= replayWithinMs) {
          return Promise.resolve({ ...recorded.response, body: replayBody(recorded.chunks) });
        }
        return client.request(request);
      },
    };
  }
}

function isDiscovery(request: GitHttpRequest): boolean {
  return (request.method ?? 'GET') === 'GET' && request.url.endsWith('/info/refs?service=git-upload-pack');
}

function headerKey(request: GitHttpRequest): string {
  return JSON.stringify(Object.entries(request.headers ?? {}).sort(([a], [b]) => a.localeCompare(b)));
}

async function* replayBody(chunks: readonly Uint8Array[]): AsyncIterableIterator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}
