/**
 * Builds the installable TypeScript client, @holdfast/client, from this workspace package (src/) and the one it
 * depends on, @holdfast/protocol (bundled in: the published package depends on zod alone):
 *
 *   dist/index.js    one ES module, bundled by esbuild, with zod left as the package's only dependency
 *   dist/index.d.ts  its types: the declarations tsc emits for src/ and the protocol files it reaches
 *                    (dist/types/), with import paths an ESM consumer resolves (`.js` on every relative path)
 *   dist/holdfast-mcp.js
 *                    the MCP gateway's command (the package's bin), src/adapters/mcp/cli.ts bundled whole with
 *                    the MCP SDK for Node: a program, so the agent's project needs nothing more for it
 *   dist/ai-sdk.js, dist/openai-agents.js, dist/langgraph.js (and their .d.ts)
 *                    the framework adapters (src/adapters), each importing its framework, an optional peer
 *                    the agent's project already has; code they share with the client sits in dist/chunks/
 *   package.json     the published manifest: this package's, its exports and bin pointed at dist/, its
 *                    workspace dependency dropped (bundled)
 *
 *   node --import tsx build.ts --package-dir DIR  a whole package in DIR (package.json, README.md, dist/);
 *                                                 `npm pack DIR` makes the tarball (npm run build: dist-package/)
 *
 * It needs only the repository's own devDependencies (esbuild, typescript, tsx), so it runs in a checkout
 * after `npm ci`. Only this package's and the protocol's sources may be bundled, importing zod and nothing else
 * (the adapters their frameworks too); the build refuses anything more.
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
/** The sources a bundle may hold, relative to the repository (esbuild names its inputs so). */
const bundledSources = ['packages/client/src/', 'packages/protocol/src/'];
/** The package's entry points: its import path under @holdfast/client, and the module it bundles. */
export const entries = {
  index: 'packages/client/src/index.ts',
  'ai-sdk': 'packages/client/src/adapters/ai-sdk/index.ts',
  'openai-agents': 'packages/client/src/adapters/openai-agents/index.ts',
  langgraph: 'packages/client/src/adapters/langgraph/index.ts',
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
const isAdapter = (input: string) => input.startsWith('packages/client/src/adapters/');
const protocolPackage = '@holdfast/protocol/';

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

/**
 * What the bundle must not hold: a source from outside the client and the protocol (the server's, the
 * database's), Node built-ins, any package but zod, or a framework imported from outside the adapters. Empty
 * when it is clean.
 */
export function scriptProblems(metafile: Metafile): string[] {
  const problems: string[] = [];
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    if (!bundledSources.some((source) => input.startsWith(source)))
      problems.push(`${input} is bundled (only the client's and the protocol's sources, and zod as an import, may be)`);
    for (const imported of imports) {
      if (!imported.external || imported.path === 'zod') continue;
      if (isFrameworkImport(imported.path) && isAdapter(input)) continue;
      problems.push(`${input} imports ${imported.path}`);
    }
  }
  return problems;
}

export async function buildScript(distDir: string): Promise<Metafile> {
  const result = await build({ ...packageBuildOptions, outdir: distDir });
  const problems = scriptProblems(result.metafile);
  if (problems.length > 0) throw new Error(`The client's bundle holds what it may not:\n${problems.join('\n')}`);
  return result.metafile;
}

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
      const declaration = `./types/${source.slice('packages/'.length).replace(/\.ts$/, '.js')}`;
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
      rootDir: path.join(repoRoot, 'packages'),
      outDir: emitDir,
      types: [],
      // Through node_modules the protocol would be a library tsc emits nothing for; by path it is a source.
      paths: { [`${protocolPackage}*`]: [path.join(repoRoot, 'packages/protocol/src/*')] },
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
 * The declarations the client's entries reach, each with its imports rewritten to the `.js` path of the file they
 * resolve to (an ESM consumer resolves nothing else): a relative one, or one of the protocol package, whose
 * declarations ship beside the client's. Any other package but zod (and the adapters' frameworks) fails the build.
 */
function collectDeclarations(emitDir: string): Map<string, string> {
  const declarations = new Map<string, string>();
  const roots = Object.values(entries).map((source) => source.slice('packages/'.length).replace(/\.ts$/, '.d.ts'));
  const reachedFrom = new Map<string, string>(roots.map((root) => [root, '']));
  const queue = [...roots];
  const chainTo = (file: string) => {
    const chain = [file];
    for (let at = reachedFrom.get(file); at; at = reachedFrom.get(at)) chain.unshift(at);
    return chain.join(' -> ');
  };
  while (queue.length > 0) {
    const file = queue.shift()!;
    const text = rewriteImports(fs.readFileSync(path.join(emitDir, file), 'utf8'), (specifier) => {
      let target: string;
      if (specifier.startsWith(protocolPackage)) {
        target = resolveDeclaration(emitDir, 'protocol/src/index', `./${specifier.slice(protocolPackage.length)}`);
      } else if (specifier.startsWith('.')) {
        target = resolveDeclaration(emitDir, file, specifier);
      } else {
        if (specifier === 'zod' || specifier.startsWith('zod/')) return specifier;
        if (isFrameworkImport(specifier) && file.startsWith('client/src/adapters/')) return specifier;
        throw new Error(`${chainTo(file)} imports the package ${specifier}: the client depends on zod alone`);
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
function rewriteImports(text: string, rewrite: (specifier: string) => string): string {
  return text
    .replace(
      /^((?:import|export)\b([^;'"]*?)\bfrom\s+)(['"])([^'"]+)\3/gm,
      (_match, head: string, _clause: string, quote: string, specifier: string) =>
        `${head}${quote}${rewrite(specifier)}${quote}`,
    )
    .replace(
      /\bimport\((['"])([^'"]+)\1\)/g,
      (_match, quote: string, specifier: string) => `import(${quote}${rewrite(specifier)}${quote})`,
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
 * The MCP gateway's command: one file for Node with the MCP SDK inside. The SDK's CommonJS dependencies call
 * `require`, which an ES module lacks: the banner gives the bundle one. Of the repository, only the client's and
 * the protocol's sources may be in it.
 */
export async function buildGatewayProgram(distDir: string): Promise<Metafile> {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: ['packages/client/src/adapters/mcp/cli.ts'],
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
  const foreign = Object.keys(result.metafile.inputs).filter(
    (input) => !input.startsWith('node_modules/') && !bundledSources.some((source) => input.startsWith(source)),
  );
  if (foreign.length > 0) throw new Error(`The MCP gateway may hold only client code:\n${foreign.join('\n')}`);
  fs.chmodSync(path.join(distDir, 'holdfast-mcp.js'), 0o755);
  return result.metafile;
}

/**
 * The published manifest: this workspace package's, with its exports, types and bin pointed at dist/ and the
 * protocol (bundled in) dropped from its dependencies. In the repository the exports name the TypeScript
 * sources, which the app, the tests and the demo fleet import as they are.
 */
export function publishedManifest(workspaceManifest: Record<string, unknown>): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  for (const name of Object.keys(entries)) {
    const subpath = name === 'index' ? '.' : `./${name}`;
    exports[subpath] = { types: `./dist/${name}.d.ts`, import: `./dist/${name}.js` };
  }
  exports['./package.json'] = './package.json';
  const { scripts: _scripts, ...rest } = workspaceManifest;
  const dependencies = { ...(workspaceManifest.dependencies as Record<string, string>) };
  delete dependencies['@holdfast/protocol'];
  return {
    ...rest,
    exports,
    types: './dist/index.d.ts',
    bin: { 'holdfast-mcp': './dist/holdfast-mcp.js' },
    dependencies: { zod: `^${dependencies.zod}` },
  };
}

/** A whole package in `packageDir`: the published manifest, the README, and dist/ (bundles, declarations, command). */
export async function buildClientPackage(packageDir: string): Promise<void> {
  fs.mkdirSync(packageDir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8'));
  fs.writeFileSync(path.join(packageDir, 'package.json'), `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
  fs.copyFileSync(path.join(packageRoot, 'README.md'), path.join(packageDir, 'README.md'));
  const distDir = path.join(packageDir, 'dist');
  fs.rmSync(distDir, { recursive: true, force: true });
  fs.mkdirSync(distDir, { recursive: true });
  await buildScript(distDir);
  await buildTypes(distDir);
  await buildGatewayProgram(distDir);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf('--package-dir');
  if (flag === -1 || !process.argv[flag + 1]) throw new Error('usage: build.ts --package-dir DIR');
  const packageDir = path.resolve(process.argv[flag + 1]!);
  await buildClientPackage(packageDir);
  console.log(`Built @holdfast/client in ${path.relative(process.cwd(), packageDir) || '.'}`);
}
