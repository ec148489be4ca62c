/**
 * Builds the installable TypeScript client, @holdfast/client, from lib/client (the source of truth: the app
 * and the demo fleet import the same files by path):
 *
 *   dist/index.js    one ES module, bundled by esbuild, with zod left as the package's only dependency
 *   dist/index.d.ts  its types: the declarations tsc emits for lib/client and the schema files it reaches
 *                    (dist/types/), with import paths an ESM consumer resolves (`.js` on every relative path)
 *   dist/holdfast-mcp.js
 *                    the MCP gateway's command (the package's bin), lib/adapters/mcp/cli.ts bundled whole with
 *                    the MCP SDK for Node: a program, so the agent's project needs nothing more for it
 *   dist/ai-sdk.js, dist/openai-agents.js, dist/langgraph.js (and their .d.ts)
 *                    the framework adapters (lib/adapters), each importing its framework, an optional peer
 *                    the agent's project already has; code they share with the client sits in dist/chunks/
 *
 *   node --import tsx build.ts                    dist/ beside this file (`npm pack` runs it as prepack)
 *   node --import tsx build.ts --package-dir DIR  a whole package in DIR (package.json, README.md, dist/),
 *                                                 for tests to pack without writing into the work tree
 *
 * It needs only the repository's own devDependencies (esbuild, typescript, tsx), so it runs in a checkout
 * after `npm ci`. The package holds no database code, and the build refuses to make one that does: a bundled
 * module of lib/db other than its enum lists, a package other than zod, or a declaration that reaches them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile } from 'esbuild';

const packageRoot = import.meta.dirname;
const repoRoot = path.resolve(packageRoot, '../..');
const sourceRoot = path.join(repoRoot, 'lib');
/** The package's entry points: its import path under @holdfast/client, and the module it bundles. */
export const entries = {
  index: 'lib/client/index.ts',
  'ai-sdk': 'lib/adapters/ai-sdk/index.ts',
  'openai-agents': 'lib/adapters/openai-agents/index.ts',
  langgraph: 'lib/adapters/langgraph/index.ts',
} as const;
/** Packages the adapters import, left to the agent's project (optional peers in package.json); the client itself imports none. */
export const frameworkPackages = [
  'ai',
  '@ai-sdk/provider',
  '@openai/agents-core',
  '@langchain/langgraph',
  '@langchain/core',
];
const isFrameworkImport = (specifier: string) =>
  frameworkPackages.some((name) => specifier === name || specifier.startsWith(`${name}/`));
/** The one module of the database layer the client may reach: the enum lists the schemas share with the tables. */
const sharedEnums = 'db/schema/enums';
/** Files a package is made of besides dist/ (npm adds README.md by itself; `files` in package.json names dist). */
const packageFiles = ['package.json', 'README.md'];

/** esbuild's options for the client alone, dist/index.js (tests bundle with them too); the output file is the caller's. */
export const scriptBuildOptions = {
  absWorkingDir: repoRoot,
  entryPoints: [entries.index],
  bundle: true,
  format: 'esm',
  // Neither node nor browser: the client runs wherever fetch does, and a Node built-in fails the build.
  platform: 'neutral',
  target: 'es2022',
  external: ['zod'],
  metafile: true,
  logLevel: 'warning',
} satisfies BuildOptions;

/** The whole package: every entry, with what they share split into chunks, and the frameworks left out. */
const packageBuildOptions = {
  ...scriptBuildOptions,
  entryPoints: entries,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['zod', ...frameworkPackages, ...frameworkPackages.map((name) => `${name}/*`)],
} satisfies BuildOptions;

/** A path under lib/ (with or without its extension) that is database code. */
function isDatabaseModule(pathInLib: string): boolean {
  const withoutExtension = pathInLib.replace(/(\.d)?\.ts$/, '');
  return withoutExtension.startsWith('db/') && withoutExtension !== sharedEnums;
}

/**
 * What the bundle must not hold: database code, Node built-ins, any package but zod, or a framework imported
 * from outside the adapters. Empty when it is clean.
 */
export function scriptProblems(metafile: Metafile): string[] {
  const problems: string[] = [];
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    if (!input.startsWith('lib/')) problems.push(`${input} is bundled (only lib/ and, as an import, zod may be)`);
    else if (isDatabaseModule(input.slice('lib/'.length))) problems.push(`${input} is database code`);
    for (const imported of imports) {
      if (!imported.external || imported.path === 'zod') continue;
      if (isFrameworkImport(imported.path) && input.startsWith('lib/adapters/')) continue;
      problems.push(`${input} imports ${imported.path}`);
    }
  }
  return problems;
}

export async function buildScript(distDir: string): Promise<Metafile> {
  const result = await build({ ...packageBuildOptions, outdir: distDir });
  const problems = scriptProblems(result.metafile);
  if (problems.length > 0) throw new Error(`The client's bundle may hold no database code:\n${problems.join('\n')}`);
  return result.metafile;
}

/**
 * Declaration files the client reaches for a few names only, whose other declarations need the database
 * layer: just those names are kept. lib/api/endpoints.ts types each endpoint's permission (`Action`) with
 * lib/core/identity/authorization.ts, whose functions take the core context, and with it a database executor.
 */
const keptNames: Record<string, string[]> = { 'core/identity/authorization.d.ts': ['actions', 'Action'] };

export async function buildTypes(distDir: string): Promise<string[]> {
  const emitDir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-client-types-'));
  try {
    emitDeclarations(emitDir);
    const declarations = collectDeclarations(emitDir);
    for (const [file, text] of declarations) {
      fs.mkdirSync(path.dirname(path.join(distDir, 'types', file)), { recursive: true });
      fs.writeFileSync(path.join(distDir, 'types', file), text);
    }
    for (const [name, source] of Object.entries(entries)) {
      const declaration = `./types/${source.slice('lib/'.length).replace(/\.ts$/, '.js')}`;
      fs.writeFileSync(path.join(distDir, `${name}.d.ts`), `export * from '${declaration}';\n`);
    }
    return [...declarations.keys()];
  } finally {
    fs.rmSync(emitDir, { recursive: true, force: true });
  }
}

/** tsc (the repository's own) emits declarations for the client and everything it reaches, types included. */
function emitDeclarations(emitDir: string): void {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023', 'DOM'],
      module: 'esnext',
      moduleResolution: 'bundler',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      isolatedModules: true,
      declaration: true,
      emitDeclarationOnly: true,
      rootDir: sourceRoot,
      outDir: emitDir,
      types: [],
    },
    files: Object.values(entries).map((source) => path.join(repoRoot, source)),
  };
  const tsconfigPath = path.join(emitDir, 'tsconfig.json');
  fs.writeFileSync(tsconfigPath, JSON.stringify(tsconfig, null, 2));
  const require = createRequire(import.meta.url);
  const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', tsconfigPath], { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`tsc failed to emit the client's declarations:\n${result.stdout}${result.stderr}`);
}

/**
 * The declarations the client's entry reaches, each with its relative imports rewritten to the `.js` path of
 * the file they resolve to (an ESM consumer resolves nothing else). A type-only import of database schema
 * names that the shared enum lists declare too is pointed at those; any other import of database code, or of
 * a package other than zod, fails the build.
 */
function collectDeclarations(emitDir: string): Map<string, string> {
  const enumNames = exportedNames(fs.readFileSync(path.join(emitDir, `${sharedEnums}.d.ts`), 'utf8'));
  const declarations = new Map<string, string>();
  const roots = Object.values(entries).map((source) => source.slice('lib/'.length).replace(/\.ts$/, '.d.ts'));
  const reachedFrom = new Map<string, string>(roots.map((root) => [root, '']));
  const queue = [...roots];
  const chainTo = (file: string) => {
    const chain = [file];
    for (let at = reachedFrom.get(file); at; at = reachedFrom.get(at)) chain.unshift(at);
    return chain.join(' -> ');
  };
  while (queue.length > 0) {
    const file = queue.shift()!;
    let text = fs.readFileSync(path.join(emitDir, file), 'utf8');
    if (keptNames[file]) text = keepDeclarations(text, keptNames[file], file);
    text = rewriteImports(text, (specifier, clause) => {
      if (!specifier.startsWith('.')) {
        if (specifier === 'zod' || specifier.startsWith('zod/')) return specifier;
        if (isFrameworkImport(specifier) && file.startsWith('adapters/')) return specifier;
        throw new Error(`${chainTo(file)} imports the package ${specifier}: the client depends on zod alone`);
      }
      let target = resolveDeclaration(emitDir, file, specifier);
      if (isDatabaseModule(target)) {
        const names = clause === undefined ? undefined : typeOnlyNames(clause);
        if (!names?.every((name) => enumNames.has(name))) {
          throw new Error(`${chainTo(file)} imports ${specifier}, database code (only ${sharedEnums} may be reached)`);
        }
        target = `${sharedEnums}.d.ts`;
      }
      if (!reachedFrom.has(target)) {
        reachedFrom.set(target, file);
        queue.push(target);
      }
      const relative = path.posix.relative(path.posix.dirname(file), target).replace(/\.d\.ts$/, '.js');
      return relative.startsWith('.') ? relative : `./${relative}`;
    });
    declarations.set(file, text);
  }
  return declarations;
}

/** Calls `rewrite` for every module specifier of `import ... from`, `export ... from` and `import('...')`. */
function rewriteImports(text: string, rewrite: (specifier: string, clause?: string) => string): string {
  return text
    .replace(
      /^((?:import|export)\b([^;'"]*?)\bfrom\s+)(['"])([^'"]+)\3/gm,
      (_match, head: string, clause: string, quote: string, specifier: string) =>
        `${head}${quote}${rewrite(specifier, clause)}${quote}`,
    )
    .replace(
      /\bimport\((['"])([^'"]+)\1\)/g,
      (_match, quote: string, specifier: string) => `import(${quote}${rewrite(specifier)}${quote})`,
    );
}

/** The names of `import type { A, B }`; undefined for an import that may bring values. */
function typeOnlyNames(clause: string): string[] | undefined {
  const match = /^\s*type\s*\{([^}]*)\}\s*$/.exec(clause);
  if (!match) return undefined;
  return match[1]!
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

function exportedNames(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/^export (?:declare (?:const|function|class) |type |interface )(\w+)/gm)].map((m) => m[1]!),
  );
}

/** The emitted declaration file a relative specifier names, as a path under the emit folder. */
function resolveDeclaration(emitDir: string, from: string, specifier: string): string {
  const base = path.posix.join(path.posix.dirname(from), specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.d.ts`, `${base}/index.d.ts`]) {
    if (fs.existsSync(path.join(emitDir, candidate))) return candidate;
  }
  throw new Error(`${from} imports ${specifier}, which tsc emitted no declaration for`);
}

/**
 * Only the named top-level declarations of a file (each a `export declare const` or `export type` statement
 * ending in `;`), in the order given. Strings and comments are skipped while looking for the statement's end.
 */
function keepDeclarations(text: string, names: string[], file: string): string {
  const kept = names.map((name) => {
    const start = new RegExp(`^export (?:declare const|type) ${name}\\b`, 'm').exec(text)?.index;
    if (start === undefined) throw new Error(`${file} no longer declares ${name}; update keptNames in build.ts`);
    return text.slice(start, statementEnd(text, start, file));
  });
  return `// Only what the client reaches of this module; the rest of it needs the database layer.\n${kept.join('\n')}\n`;
}

function statementEnd(text: string, start: number, file: string): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const char = text[at]!;
    if (char === '/' && text[at + 1] === '*') at = text.indexOf('*/', at + 2) + 1;
    else if (char === '/' && text[at + 1] === '/') at = text.indexOf('\n', at);
    else if (char === "'" || char === '"' || char === '`') {
      for (at++; at < text.length && text[at] !== char; at++) if (text[at] === '\\') at++;
    } else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (char === ';' && depth === 0) return at + 1;
    if (at < start) break; // an unclosed comment
  }
  throw new Error(`${file}: a kept declaration has no end`);
}

/**
 * The MCP gateway's command: one file for Node with the MCP SDK inside. The SDK's CommonJS dependencies call
 * `require`, which an ES module lacks: the banner gives the bundle one. Of lib/, only client code may be in it.
 */
export async function buildGatewayProgram(distDir: string): Promise<Metafile> {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: ['lib/adapters/mcp/cli.ts'],
    outfile: path.join(distDir, 'holdfast-mcp.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['zod'],
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as holdfastCreateRequire } from 'node:module';\nconst require = holdfastCreateRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: 'warning',
  });
  const database = Object.keys(result.metafile.inputs).filter(
    (input) => input.startsWith('lib/') && isDatabaseModule(input.slice('lib/'.length)),
  );
  if (database.length > 0) throw new Error(`The MCP gateway may hold no database code:\n${database.join('\n')}`);
  fs.chmodSync(path.join(distDir, 'holdfast-mcp.js'), 0o755);
  return result.metafile;
}

/** dist/ in `packageDir`: the bundles, their declarations and the gateway's command. */
export async function buildClientPackage(packageDir: string): Promise<void> {
  const distDir = path.join(packageDir, 'dist');
  fs.rmSync(distDir, { recursive: true, force: true });
  fs.mkdirSync(distDir, { recursive: true });
  await buildScript(distDir);
  await buildTypes(distDir);
  await buildGatewayProgram(distDir);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf('--package-dir');
  const packageDir = flag === -1 ? packageRoot : path.resolve(process.argv[flag + 1] ?? '');
  if (flag !== -1 && !process.argv[flag + 1]) throw new Error('--package-dir needs a folder');
  if (packageDir !== packageRoot) {
    fs.mkdirSync(packageDir, { recursive: true });
    for (const file of packageFiles) fs.copyFileSync(path.join(packageRoot, file), path.join(packageDir, file));
  }
  await buildClientPackage(packageDir);
  console.log(`Built @holdfast/client in ${path.relative(process.cwd(), path.join(packageDir, 'dist')) || 'dist'}`);
}
