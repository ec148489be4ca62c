import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { scriptBuildOptions, scriptProblems } from '../../../packages/client/build';

/**
 * The typed client is what an agent bundles: it must reach the API's schemas
 * and nothing of the services behind them. Bundling it as a browser would
 * shows what it really pulls in; a database driver, the ORM or a Node
 * built-in in that bundle means some import chain reaches a service file.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const forbiddenPackages = ['drizzle-orm', 'postgres', 'next', 'server-only'];

const builtins = new Set(builtinModules);
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!);

/** Built-ins stay external, so the bundle completes and the metafile names who imports them. */
const builtinsExternal: Plugin = {
  name: 'builtins-external',
  setup(onBuild) {
    onBuild.onResolve({ filter: /.*/ }, (args) =>
      isBuiltin(args.path) ? { path: args.path, external: true } : undefined,
    );
  },
};

function packageOf(input: string): string | undefined {
  const inside = input.split('node_modules/').at(-1);
  if (inside === input || !inside) return undefined;
  const parts = inside.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Every forbidden module in the bundle, each with the import chain from the entry that brings it in. */
function forbiddenChains(entry: string, metafile: Metafile): string[] {
  const parent = new Map<string, string>([[entry, '']]);
  const queue = [entry];
  const found: string[] = [];
  const chainTo = (node: string) => {
    const chain = [node];
    for (let at = parent.get(node); at; at = parent.get(at)) chain.unshift(at);
    return chain.join(' -> ');
  };
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const imported of metafile.inputs[at]?.imports ?? []) {
      const forbidden = imported.external
        ? isBuiltin(imported.path)
        : forbiddenPackages.includes(packageOf(imported.path) ?? '');
      if (forbidden) {
        const name = imported.external ? imported.path : packageOf(imported.path)!;
        if (!found.some((chain) => chain.endsWith(` -> ${name}`))) found.push(`${chainTo(at)} -> ${name}`);
        continue;
      }
      if (imported.external || parent.has(imported.path)) continue;
      parent.set(imported.path, at);
      queue.push(imported.path);
    }
  }
  return found;
}

async function bundle(entry: string) {
  return build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [builtinsExternal],
  });
}

describe('the typed client bundle', () => {
  it('holds no database code and no Node built-ins', async () => {
    const entry = 'packages/client/src/index.ts';
    const result = await bundle(entry);
    const inputs = Object.keys(result.metafile.inputs);
    // It did bundle the client and the protocol's schemas.
    expect(inputs).toContain('packages/protocol/src/api/endpoints.ts');
    expect(inputs.some((input) => packageOf(input) === 'zod')).toBe(true);

    expect(forbiddenChains(entry, result.metafile)).toEqual([]);
    expect(inputs.filter((input) => forbiddenPackages.includes(packageOf(input) ?? ''))).toEqual([]);
    // Nothing of the server's tree: the client's and the protocol's sources, and zod.
    expect(inputs.filter((input) => !/^packages\/(client|protocol)\/src\//.test(input) && !packageOf(input))).toEqual(
      [],
    );
  });

  // The installable package (packages/client) is this bundle with zod left out as its dependency;
  // tests/integration/adapters/installable-clients.test.ts checks the packed tarball's files and imports.
  it('is what the package build bundles, importing zod and nothing else', async () => {
    const result = await build({ ...scriptBuildOptions, write: false, outfile: 'index.js', logLevel: 'silent' });
    expect(scriptProblems(result.metafile)).toEqual([]);
    const externals = Object.values(result.metafile.inputs).flatMap(({ imports }) =>
      imports.filter((imported) => imported.external).map((imported) => imported.path),
    );
    expect([...new Set(externals)]).toEqual(['zod']);
    expect(Object.keys(result.metafile.inputs)).toContain('packages/client/src/index.ts');
    expect(Object.keys(result.metafile.inputs).filter((input) => input.startsWith('lib/'))).toEqual([]);
  });

  it("makes the package build refuse the server's code and other packages", () => {
    const metafile = {
      inputs: {
        'packages/client/src/index.ts': {
          bytes: 1,
          imports: [{ path: 'postgres', kind: 'import-statement', external: true }],
        },
        'packages/engine/src/db/client.ts': { bytes: 1, imports: [] },
        'node_modules/drizzle-orm/index.js': { bytes: 1, imports: [] },
      },
      outputs: {},
    } satisfies Metafile;
    expect(scriptProblems(metafile)).toEqual([
      'packages/client/src/index.ts imports postgres',
      "packages/engine/src/db/client.ts is bundled (only the client's and the protocol's sources, and zod as an import, may be)",
      "node_modules/drizzle-orm/index.js is bundled (only the client's and the protocol's sources, and zod as an import, may be)",
    ]);
  });

  // The client takes only types from the response schemas; a client that parses answers would bundle them.
  it.each(['packages/protocol/src/api/endpoints.ts', 'packages/protocol/src/api/responses.ts', 'lib/api/openapi.ts'])(
    'and neither does %s',
    async (entry) => {
      const result = await bundle(entry);
      expect(forbiddenChains(entry, result.metafile)).toEqual([]);
    },
  );
});
