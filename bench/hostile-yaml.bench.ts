// What refusing a hostile YAML file costs, against reading an ordinary manifest file of the same
// size with the same loader, in the same run: a billion-laughs file (nine levels of nine aliases,
// 9^10 values if expanded) and 10,000 levels of nesting. The tests assert the bounds by count
// (alias expansion, nesting at the 101st level); this says what they cost in time.
// Run: npx tsx bench/hostile-yaml.bench.ts [rounds]
import { defaultLoadLimits, loadManifestFile } from '@tidemark/git-source';
import { figure, percentile, printFigures, say, sortedCopy } from './support/figures';

const rounds = Number(process.argv[2] ?? 30);
const encode = (text: string) => new TextEncoder().encode(text);

function billionLaughs(): string {
  const names = 'abcdefghij';
  const lines = ['apiVersion: v1', 'kind: List', 'metadata: {name: laughs}', 'items:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let level = 1; level < names.length; level += 1) lines.push(`  ${names[level]}: &${names[level]} [${Array(9).fill(`*${names[level - 1]}`).join(',')}]`);
  return lines.join('\n');
}

/** ordinaryFile is ConfigMaps in one file, about `bytes` long: what a file of that size usually holds. */
function ordinaryFile(bytes: number): string {
  const documents: string[] = [];
  for (let index = 0; documents.join('---\n').length < bytes; index += 1) {
    documents.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-${index}\n  namespace: shop\ndata:\n  mode: fast\n`);
  }
  return documents.join('---\n');
}

/** medianMs loads `text` `rounds` times and gives the median; `expect` checks the result every time. */
function medianMs(text: string, expect: (file: ReturnType<typeof loadManifestFile>) => boolean): number {
  const bytes = encode(text);
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    const file = loadManifestFile(bytes, defaultLoadLimits);
    samples.push(performance.now() - started);
    if (!expect(file)) throw new Error(`unexpected result: ${JSON.stringify(file.problems)}`);
  }
  return percentile(sortedCopy(samples), 0.5);
}

const refused = (reason: RegExp) => (file: ReturnType<typeof loadManifestFile>) => file.failed && file.problems[0]?.code === 'LimitExceeded' && reason.test(file.problems[0].reason);
const read = (file: ReturnType<typeof loadManifestFile>) => !file.failed && file.entries.length > 0;

const cases = [
  { name: 'billion-laughs file', text: billionLaughs(), reason: /^aliases expand too far/ },
  { name: '10,000 levels of flow sequences', text: '['.repeat(10_000) + ']'.repeat(10_000), reason: /^nesting deeper than 100 levels/ },
  { name: '10,000 levels of JSON objects', text: '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), reason: /^nesting deeper than 100 levels/ },
];
// Warm the loader up first, so neither side pays for compiling it.
for (const { text } of cases) loadManifestFile(encode(text), defaultLoadLimits);

const figures = cases.map(({ name, text, reason }) => {
  const hostile = medianMs(text, refused(reason));
  const ordinary = ordinaryFile(text.length);
  const baseline = medianMs(ordinary, read);
  say(`${name}: ${text.length} bytes refused in ${hostile.toFixed(3)} ms; an ordinary file of ${ordinary.length} bytes read in ${baseline.toFixed(3)} ms`);
  // As rates (files per second, from the medians): refusing a nesting bomb is thousands of times cheaper than reading, which a ratio of times would round to 0.
  return figure(`files refused per second: ${name} (${text.length} bytes), median of ${rounds}`, 'files/s', 1_000 / hostile, `ordinary manifest files of the same size (${ordinary.length} bytes) read per second with the same loader`, 1_000 / baseline);
});
printFigures('hostile-yaml', figures);
