// Checks the import rules between Tidemark's libraries and apps, as each library's index.ts header
// states them. The header is a comment at the top of libs/<x>/src/index.ts with one line per field:
//   // Owns: <what the library owns>.
//   // Entry points: <the names a caller starts from>.
//   // Records: <the Redis records it owns, or "none">.
//   // May import: @tidemark/contracts, @tidemark/cluster.   (or "May import: no other Tidemark library.")
// A field may run on over the next comment lines. "Test and bench code only." in a header makes the
// library off limits to production code. The rules, for every production file in libs/*/src and
// apps/*/src (not *.test.ts, not src/testing/), over static imports, re-exports and import() of a literal:
//   - a library imports only the libraries its header's "May import" line names;
//   - a library imports no app, and an app no other app;
//   - no file reaches into another library's or app's files (a path into libs/<x>/src, or
//     @tidemark/<x>/<path>): other libraries are imported as @tidemark/<x> only;
//   - production code imports no test-only library, nothing under test/ or bench/, and no test-only
//     file kept beside it (a *.test.ts file or a library's src/testing/ folder).
//   - a library's index.ts exports only names another library, app, test, bench or script file
//     imports (internals stay internal), but for its header's entry points and the names in
//     deliberatelyExported, each with its reason.
// It prints, per library, how many names its index.ts exports and how many of them no one else imports.
// Usage: npx tsx scripts/check-boundaries.ts [--unused]   (exit 1, one line per broken rule;
// --unused prints the unused exported names themselves, not only their counts)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const scope = '@tidemark/';

/** A library or an app: the unit the import rules are about. */
interface Unit {
  readonly kind: 'lib' | 'app';
  readonly name: string;
}

interface Header {
  readonly mayImport: ReadonlySet<string>;
  /** The names the header's "Entry points:" line gives: public by declaration, used outside or not. */
  readonly entryPoints: ReadonlySet<string>;
  readonly testOnly: boolean;
}

interface ImportSite {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  /** The names a static import or re-export takes; undefined for `import *` and import(). */
  readonly names: readonly string[] | undefined;
}

const headerFields = ['Owns', 'Entry points', 'Records', 'May import'] as const;

/** deliberatelyExported are names an index.ts exports for no other package today, each with why it stays. */
const deliberatelyExported = new Map<string, string>([
]);

function directories(folder: string): string[] {
  const path = join(root, folder);
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
}

function typescriptFiles(folder: string): string[] {
  const path = join(root, folder);
  if (!existsSync(path)) return [];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.split(sep).includes('node_modules'))
    .map((name) => join(folder, name))
    .sort();
}

/** isTestOnly tells whether a path is test code kept beside production code: a test, or a library's src/testing/. */
const isTestOnly = (path: string): boolean => /\.test(\.ts)?$/.test(path) || path.split(sep).join('/').includes('/src/testing/');

/** unitOf names the library or app a repository path belongs to, if any. */
function unitOf(file: string): Unit | undefined {
  const [top, name] = file.split(sep);
  if (!name) return undefined;
  if (top === 'libs') return { kind: 'lib', name };
  if (top === 'apps') return { kind: 'app', name };
  return undefined;
}

/** parseHeader reads the fields of a library's index.ts header; errors name what is missing. */
function parseHeader(lib: string, errors: string[]): Header {
  const file = join('libs', lib, 'src', 'index.ts');
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const comment: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('//')) break;
    comment.push(line.replace(/^\/\/\s?/, ''));
  }
  const fields = new Map<string, string>();
  let current: string | undefined;
  for (const line of comment) {
    const field = headerFields.find((name) => line.startsWith(`${name}:`));
    if (field) {
      current = field;
      fields.set(field, line.slice(field.length + 1).trim());
    } else if (current) {
      fields.set(current, `${fields.get(current)} ${line.trim()}`);
    }
  }
  for (const field of headerFields) {
    if (!fields.get(field)) errors.push(`${file}:1 header has no "${field}:" line (the header starts the file, one "// ${field}: ..." line each)`);
  }
  const mayImport = new Set<string>();
  const rule = fields.get('May import') ?? '';
  if (!/^no other Tidemark library\b/.test(rule)) {
    const listed = rule.replace(/\.$/, '').split(/,\s*|\s+and\s+/).map((name) => name.trim()).filter(Boolean);
    for (const name of listed) {
      if (name.startsWith(scope)) mayImport.add(name.slice(scope.length));
      else errors.push(`${file}:1 "May import:" lists "${name}"; write @tidemark/<library> names, or "no other Tidemark library."`);
    }
  }
  const entryPoints = new Set((fields.get('Entry points') ?? '').match(/[A-Za-z_$][\w$]*/g) ?? []);
  return { mayImport, entryPoints, testOnly: comment.some((line) => line.includes('Test and bench code only.')) };
}

function stringLiteral(node: ts.Node | undefined): string | undefined {
  return node && ts.isStringLiteralLike(node) ? node.text : undefined;
}

/** importedNames gives the names an import declaration takes; undefined for `import * as`. */
function importedNames(node: ts.ImportDeclaration): string[] | undefined {
  const bindings = node.importClause?.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) return undefined;
  const named = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((element) => (element.propertyName ?? element.name).text) : [];
  return [...(node.importClause?.name ? ['default'] : []), ...named];
}

/** siteOf gives the module a node imports and the names it takes, if the node imports one. */
function siteOf(node: ts.Node): { specifier: string | undefined; names: readonly string[] | undefined } | undefined {
  if (ts.isImportDeclaration(node)) return { specifier: stringLiteral(node.moduleSpecifier), names: importedNames(node) };
  if (ts.isExportDeclaration(node)) {
    const clause = node.exportClause;
    const names = clause && ts.isNamedExports(clause) ? clause.elements.map((element) => (element.propertyName ?? element.name).text) : undefined;
    return { specifier: stringLiteral(node.moduleSpecifier), names };
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) return { specifier: stringLiteral(node.moduleReference.expression), names: undefined };
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return { specifier: stringLiteral(node.arguments[0]), names: undefined };
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
    const qualifier = node.qualifier && (ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText());
    return { specifier: stringLiteral(node.argument.literal), names: qualifier ? [qualifier] : undefined };
  }
  return undefined;
}

/** importsOf lists a file's static imports, re-exports, import() calls and import() types of a string literal. */
function importsOf(file: string): ImportSite[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const sites: ImportSite[] = [];
  const visit = (node: ts.Node): void => {
    const site = siteOf(node);
    if (site?.specifier !== undefined) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      sites.push({ file, line, specifier: site.specifier, names: site.names });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** Where an import leads: a unit's public entry, a path inside a unit, or elsewhere in the repository. */
type Target =
  | { readonly to: 'entry'; readonly unit: Unit }
  | { readonly to: 'inside'; readonly unit: Unit; readonly path: string }
  | { readonly to: 'path'; readonly path: string }
  | { readonly to: 'package' };

function targetOf(site: ImportSite): Target {
  const { specifier } = site;
  if (specifier.startsWith(scope)) {
    const [name, ...rest] = specifier.slice(scope.length).split('/');
    const unit: Unit = existsSync(join(root, 'apps', name ?? '')) ? { kind: 'app', name: name ?? '' } : { kind: 'lib', name: name ?? '' };
    return rest.length === 0 ? { to: 'entry', unit } : { to: 'inside', unit, path: specifier };
  }
  if (!specifier.startsWith('.')) return { to: 'package' };
  const path = relative(root, resolve(root, dirname(site.file), specifier));
  const unit = unitOf(path);
  return unit ? { to: 'inside', unit, path } : { to: 'path', path };
}

const sameUnit = (a: Unit, b: Unit): boolean => a.kind === b.kind && a.name === b.name;
const label = (unit: Unit): string => (unit.kind === 'lib' ? `${scope}${unit.name}` : `apps/${unit.name}`);

function allowedText(header: Header): string {
  return header.mayImport.size === 0 ? 'no other Tidemark library' : [...header.mayImport].sort().map((name) => `${scope}${name}`).join(', ');
}

/** unitViolation says which rule an import of another unit's entry (@tidemark/<x>) breaks, if any. */
function unitViolation(where: string, unit: Unit, from: Unit, headers: ReadonlyMap<string, Header>): string | undefined {
  if (unit.kind === 'app') return from.kind === 'lib' ? `${where}, but a library may not import an app` : `${where}, but an app may not import another app`;
  const header = headers.get(unit.name);
  if (!header) return `${where}, but libs/${unit.name} does not exist`;
  if (header.testOnly) return `${where}, but ${label(unit)} is test and bench code only`;
  const own = from.kind === 'lib' ? headers.get(from.name) : undefined;
  if (own && !own.mayImport.has(unit.name)) return `${where}, but libs/${from.name}/src/index.ts allows only ${allowedText(own)}`;
  return undefined;
}

/** violationOf says which rule an import from a production file breaks, if any. */
function violationOf(site: ImportSite, from: Unit, headers: ReadonlyMap<string, Header>): string | undefined {
  const target = targetOf(site);
  const where = `${site.file}:${site.line} imports ${site.specifier}`;
  if (target.to === 'package') return undefined;
  if (target.to === 'path') {
    const top = target.path.split(sep)[0];
    return top === 'test' || top === 'bench' ? `${where}, but production code may not import test or bench code` : undefined;
  }
  const { unit } = target;
  if (target.to === 'inside' && isTestOnly(target.path)) return `${where}, but that is test-only code (a *.test.ts file or src/testing/)`;
  if (sameUnit(unit, from)) return target.to === 'inside' && site.specifier.startsWith(scope) ? `${where}, its own package by a subpath; use a relative path` : undefined;
  if (target.to === 'inside' && unit.kind === 'lib') return `${where}, a file inside ${label(unit)}; import ${label(unit)} itself (its index.ts) instead`;
  return unitViolation(where, unit, from, headers);
}

/** exportedNames lists the names a library's index.ts exports (named re-exports and local exports). */
function exportedNames(lib: string): string[] {
  const file = join('libs', lib, 'src', 'index.ts');
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((element) => element.name.text));
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) {
      const named = statement as ts.Node & { name?: ts.Identifier };
      if (named.name) names.push(named.name.text);
      if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.flatMap((declaration) => (ts.isIdentifier(declaration.name) ? [declaration.name.text] : [])));
    }
  }
  return names;
}

/** unusedExports lists the names a library's index.ts exports that no file outside the library imports. */
function unusedExports(lib: string, sitesByFile: ReadonlyMap<string, readonly ImportSite[]>): { exported: string[]; unused: string[] } {
  const exported = exportedNames(lib);
  const used = new Set<string>();
  for (const [file, sites] of sitesByFile) {
    const unit = unitOf(file);
    if (unit?.kind === 'lib' && unit.name === lib) continue;
    for (const site of sites.filter((entry) => entry.specifier === `${scope}${lib}`)) {
      // import * and import(): count every exported name the file mentions.
      const names = site.names ?? exported.filter((name) => new RegExp(`\\b${name}\\b`).test(readFileSync(join(root, file), 'utf8')));
      names.forEach((name) => used.add(name));
    }
  }
  return { exported, unused: exported.filter((name) => !used.has(name)) };
}

function main(): void {
  const errors: string[] = [];
  const libs = directories('libs');
  const apps = directories('apps');
  const headers = new Map(libs.map((lib) => [lib, parseHeader(lib, errors)] as const));
  const sources = [...libs.map((lib) => join('libs', lib, 'src')), ...apps.map((app) => join('apps', app, 'src'))].flatMap(typescriptFiles);
  const elsewhere = ['test', 'bench', 'scripts'].flatMap(typescriptFiles);
  const sitesByFile = new Map([...sources, ...elsewhere].map((file) => [file, importsOf(file)] as const));

  for (const file of sources.filter((name) => !isTestOnly(name))) {
    const from = unitOf(file);
    const sites = sitesByFile.get(file) ?? [];
    if (from) errors.push(...sites.flatMap((site) => violationOf(site, from, headers) ?? []));
  }

  const showNames = process.argv.includes('--unused');
  const report = libs.map((lib) => {
    const { exported, unused } = unusedExports(lib, sitesByFile);
    const index = join('libs', lib, 'src', 'index.ts');
    const declared = headers.get(lib)?.entryPoints ?? new Set<string>();
    errors.push(...unused.filter((name) => !declared.has(name) && !deliberatelyExported.has(`${scope}${lib}:${name}`)).map((name) => `${index}:1 exports ${name}, which no other library, app, test, bench or script imports; drop it from the index (or list it in deliberatelyExported with why)`));
    const names = showNames && unused.length > 0 ? `: ${unused.join(', ')}` : '';
    return `${`${scope}${lib}`.padEnd(28)} exports ${String(exported.length).padStart(3)}, unused outside it ${String(unused.length).padStart(3)}${names}`;
  });
  console.log(`Exported names no other library, app, test or bench file imports:\n${report.join('\n')}`);

  if (errors.length > 0) {
    console.error(`\n${errors.length} boundary rule(s) broken:\n${errors.join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log(`\nBoundaries hold: ${sources.length} files in ${libs.length} libraries and ${apps.length} apps.`);
  }
}

main();
