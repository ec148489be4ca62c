/**
 * The layer rules for the pages and components (.tsx), which dependency-cruiser
 * cannot read here: its swc parser has no JSX mode and TypeScript 7 has no JS API.
 * swc parses each file with JSX on; the rules are the ones the browser bundle needs:
 *   - a shared component never imports a page or its actions (components -> app);
 *   - a client file ('use client') never imports the database, the library's
 *     services, the read models or the server glue: they would be shipped to the
 *     browser (or fail the build late, with a less clear message);
 *   - the shared list widgets (components/console) take their data as props,
 *     server-rendered or not: they import no database, service, read model or
 *     server glue, so any page can use them and none of them reads behind its back.
 * Run by `npm run lint`; exits 1 and names each breach.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from '@swc/core';

const root = path.resolve(import.meta.dirname, '../..');

interface Rule {
  name: string;
  applies: (file: string, isClient: boolean) => boolean;
  forbidden: RegExp;
}

/**
 * The engine (the database, the library's services, the analytics, the receiver: `@holdfast/engine`, whose
 * faces carry everything), the read models and the server glue. The schemas a browser island needs are the
 * protocol's (`@holdfast/protocol`). lib/server/read-source/notice is plain (no imports, checked by
 * .dependency-cruiser.cjs): the Overview's island says where each poll was read from with the same words the
 * server-rendered pages use.
 */
const serverCode = /^(@holdfast\/engine($|\/)|lib\/queries\/|lib\/server\/(?!read-source\/notice$)|server-only$)/;

const rules: Rule[] = [
  { name: 'components-are-not-pages', applies: (file) => file.startsWith('components/'), forbidden: /^app\// },
  { name: 'client-files-import-no-server-code', applies: (_file, isClient) => isClient, forbidden: serverCode },
  {
    name: 'console-widgets-take-data-as-props',
    applies: (file) => file.startsWith('components/console/'),
    forbidden: serverCode,
  },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** Every module a file imports or re-exports at run time (type-only imports are erased). */
function importedModules(file: string, source: string): string[] {
  const module = parseSync(source, { syntax: 'typescript', tsx: file.endsWith('.tsx'), target: 'es2022' });
  const found: string[] = [];
  for (const item of module.body) {
    if (item.type === 'ImportDeclaration') {
      const typesOnly =
        item.typeOnly ||
        (item.specifiers.length > 0 &&
          item.specifiers.every((specifier) => specifier.type === 'ImportSpecifier' && specifier.isTypeOnly));
      if (!typesOnly) found.push(item.source.value);
    } else if (item.type === 'ExportAllDeclaration') {
      found.push(item.source.value);
    } else if (item.type === 'ExportNamedDeclaration' && item.source) {
      found.push(item.source.value);
    }
  }
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1]!);
  return found;
}

/** Where an import points, relative to the repository root, without its extension. */
function resolveImport(fromFile: string, specifier: string): string {
  if (specifier.startsWith('@/')) return specifier.slice(2).replace(/\.(tsx?|js)$/, '');
  if (specifier.startsWith('.')) {
    return path.relative(root, path.resolve(root, path.dirname(fromFile), specifier)).replace(/\.(tsx?|js)$/, '');
  }
  return specifier;
}

const breaches: string[] = [];
let checked = 0;
for (const file of [...sourceFiles('app'), ...sourceFiles('components')]) {
  const source = readFileSync(path.join(root, file), 'utf8');
  const isClient = /^\s*(\/\/[^\n]*\n|\/\*[\s\S]*?\*\/\s*)*['"]use client['"]/.test(source);
  checked += 1;
  for (const specifier of importedModules(file, source)) {
    const target = resolveImport(file, specifier);
    for (const rule of rules) {
      if (rule.applies(file, isClient) && rule.forbidden.test(target)) {
        breaches.push(`${rule.name}: ${file} imports ${specifier}`);
      }
    }
  }
}

if (breaches.length > 0) {
  console.error(`${breaches.length} layer rule breach(es) in the pages and components:\n  ${breaches.join('\n  ')}`);
  process.exit(1);
}
console.log(`✔ tsx layer rules: ${checked} page and component files, no breach`);
