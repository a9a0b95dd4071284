// Checks that every relative link between the docs resolves: the file (or folder) it names exists
// and, for a markdown file, the #anchor is one of its headings (GitHub's slugs) or <a id>/<a name>.
// Links inside code (fenced blocks, `spans`) and links with a scheme (https:, mailto:) are not checked.
// Usage: npx tsx scripts/check-docs-links.ts   (exit 1, one line per broken link, when any is broken)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The pages whose links are checked: the front door, docs/, and the READMEs they send readers to. */
const pages = ['README.md', ...markdownUnder('docs'), 'bench/README.md', 'deploy/README.md'];

interface Link {
  readonly line: number;
  readonly target: string;
}

function markdownUnder(folder: string): string[] {
  const path = join(root, folder);
  if (!existsSync(path)) return [];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(folder, name))
    .sort();
}

/** linesOutsideCode gives the file's lines, blank inside fenced code blocks; code spans are dropped unless kept. */
function linesOutsideCode(text: string, keepSpans = false): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      return '';
    }
    if (fence) return '';
    return keepSpans ? line : line.replace(/(`+)[^`]*?\1/g, '');
  });
}

/** linksOf finds inline links and images `[text](target)` and reference definitions `[x]: target`. */
function linksOf(text: string): Link[] {
  const links: Link[] = [];
  linesOutsideCode(text).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: index + 1, target: match[1] ?? '' });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition?.[1]) links.push({ line: index + 1, target: definition[1] });
  });
  return links;
}

/** slugOf is GitHub's heading anchor: the text without markup, lower-cased, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

/** anchorsOf lists the anchors a markdown file offers: its headings (duplicates numbered as GitHub does) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of linesOutsideCode(text, true)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = slugOf(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1] ?? '');
  }
  return anchors;
}

/** problemOf says why one link does not resolve, or undefined when it does. */
function problemOf(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === '' ? join(root, page) : pathPart.startsWith('/') ? join(root, pathPart) : resolve(root, dirname(page), pathPart);
  if (!existsSync(file)) return `${relative(root, file)} does not exist`;
  if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) return undefined;
  if (anchorsOf(readFileSync(file, 'utf8')).has(anchor)) return undefined;
  return `${relative(root, file)} has no heading with the anchor #${anchor}`;
}

let checked = 0;
const broken: string[] = [];
for (const page of pages) {
  const path = join(root, page);
  if (!existsSync(path)) {
    broken.push(`${page}: the page itself is missing`);
    continue;
  }
  for (const link of linksOf(readFileSync(path, 'utf8'))) {
    checked += 1;
    const problem = problemOf(page, link.target);
    if (problem) broken.push(`${page}:${link.line}: (${link.target}) ${problem}`);
  }
}
for (const line of broken) console.error(line);
console.log(`check-docs-links: ${checked} links in ${pages.length} pages, ${broken.length} broken`);
process.exitCode = broken.length === 0 ? 0 : 1;
