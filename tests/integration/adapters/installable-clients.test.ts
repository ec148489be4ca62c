import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../../../packages/engine/src/core';
import { frameworkPackages } from '../../../packages/client/build';
import { startServerOn, type HoldfastServer } from '../../support/holdfast-server';
import { admin } from '../../support/actors';
import { useTestDatabase } from '../../support/test-database';

/**
 * The clients installed as packages, the way an agent's own project gets them, with nothing from a registry:
 * the TypeScript client built into a package of its own (packages/client), packed with npm and installed
 * offline into a scratch project outside the repository (zod, its one dependency, packed from node_modules);
 * the Python client built into a wheel and installed into a fresh virtualenv. Each then runs a small agent
 * that imports only the installed package against a live production Holdfast: its step fails transiently
 * once, completes on attempt 2 and is replayed after that, and the attempts table holds exactly those tries.
 */
const projectRoot = path.resolve(import.meta.dirname, '../../..');
const database = useTestDatabase();
let server: HoldfastServer;
let token = '';
let scratch = '';

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-installable-'));
  token = (await createApiToken({ db: database.db, actor: admin }, { name: 'packaged agents', scopes: ['ingest'] }))
    .token;
  const started = startServerOn(database);
  // Packing and installing overlap the server's start; each writes only under `scratch`.
  [server] = await Promise.all([started, installTypeScriptClient(), installPythonClient()]);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Runs a command; resolves with its output, rejects with all of it when it exits non-zero. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...options, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** The environment without what `npm run` and this machine's pip settings add, as in an agent author's shell. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const name of Object.keys(env)) {
    if (/^(npm_|PIP_|PYTHONPATH$)/i.test(name) && !(name in extra)) delete env[name];
  }
  return env;
}

const tsProject = () => path.join(scratch, 'ts-agent');
const tsPacked = { files: [] as string[], tarball: '' };

async function installTypeScriptClient(): Promise<void> {
  const staged = path.join(scratch, 'ts-package');
  const tarballs = path.join(scratch, 'tarballs');
  fs.mkdirSync(tarballs);
  // The package's own build (what `npm run build` in packages/client runs), into a folder of the test's.
  await run(process.execPath, ['--import', 'tsx', 'packages/client/build.ts', '--package-dir', staged], {
    cwd: projectRoot,
  });
  const npmPack = async (folder: string) => {
    const { stdout } = await run(
      'npm',
      ['pack', folder, '--ignore-scripts', '--json', '--pack-destination', tarballs],
      {
        cwd: scratch,
        env: cleanEnv(),
      },
    );
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    return { tarball: path.join(tarballs, packed!.filename), files: packed!.files.map((file) => file.path) };
  };
  const [client, zod, ...aiSdk] = await Promise.all([
    npmPack(staged),
    npmPack(path.join(projectRoot, 'node_modules/zod')),
    // The AI SDK and what it needs, for the adapter's agent: an agent's project has them already.
    ...AI_SDK_PACKAGES.map((name) => npmPack(path.join(projectRoot, 'node_modules', name))),
  ]);
  Object.assign(tsPacked, client);

  fs.mkdirSync(tsProject());
  fs.writeFileSync(
    path.join(tsProject(), 'package.json'),
    JSON.stringify({ name: 'packaged-agent', version: '0.0.0', private: true, type: 'module' }),
  );
  // An empty cache and a registry that is not there: the install must need nothing but the two tarballs.
  await run(
    'npm',
    [
      'install',
      '--offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      zod.tarball,
      client.tarball,
      ...aiSdk.map((packed) => packed.tarball),
    ],
    {
      cwd: tsProject(),
      env: cleanEnv({ npm_config_cache: path.join(scratch, 'npm-cache'), npm_config_registry: 'http://127.0.0.1:9/' }),
    },
  );
  fs.writeFileSync(path.join(tsProject(), 'agent.mjs'), TYPESCRIPT_AGENT);
  fs.writeFileSync(path.join(tsProject(), 'ai-agent.mjs'), AI_SDK_AGENT);
  fs.writeFileSync(path.join(tsProject(), 'payments-server.mjs'), MCP_UPSTREAM_SERVER);
  fs.writeFileSync(path.join(tsProject(), 'mcp-client.mjs'), MCP_CLIENT);
}

/** The AI SDK (`ai` with its mock model in `ai/test`) and every package it imports, as node_modules holds them. */
const AI_SDK_PACKAGES = [
  'ai',
  '@ai-sdk/gateway',
  '@ai-sdk/provider',
  '@ai-sdk/provider-utils',
  '@vercel/oidc',
  '@workflow/serde',
  'eventsource-parser',
  'json-schema',
  '@standard-schema/spec',
];

const venv = () => path.join(scratch, 'venv');
let wheelFiles: string[] = [];

/** A Python that can build a wheel offline: setuptools with bdist_wheel (70.1 and newer, or the wheel package). */
async function wheelBuilder(): Promise<string> {
  const probe =
    'import importlib.util, setuptools; v = tuple(int(p) for p in setuptools.__version__.split(".")[:2]); ' +
    'raise SystemExit(0 if v >= (70, 1) or importlib.util.find_spec("wheel") else 1)';
  const candidates = [process.env.HOLDFAST_WHEEL_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean) as string[];
  for (const python of candidates) {
    if (
      await run(python, ['-c', probe], { cwd: scratch }).then(
        () => true,
        () => false,
      )
    )
      return python;
  }
  throw new Error(`No Python with setuptools and wheel to build the client's wheel offline (tried ${candidates})`);
}

async function installPythonClient(): Promise<void> {
  // The build writes build/ and holdfast.egg-info beside its sources: a copy of them, not the work tree.
  const source = path.join(scratch, 'python-source');
  fs.mkdirSync(source);
  for (const file of ['pyproject.toml', 'README.md', 'holdfast.py']) {
    fs.copyFileSync(path.join(projectRoot, 'clients/python', file), path.join(source, file));
  }
  const pipEnv = cleanEnv({ PIP_CONFIG_FILE: os.devNull, PIP_DISABLE_PIP_VERSION_CHECK: '1' });
  const wheels = path.join(scratch, 'wheels');
  const [builder] = await Promise.all([wheelBuilder(), run('python3', ['-m', 'venv', venv()], { cwd: scratch })]);
  await run(builder, ['-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '--no-index', '-w', wheels, source], {
    cwd: scratch,
    env: pipEnv,
  });
  const [wheel] = fs.readdirSync(wheels);
  const python = path.join(venv(), 'bin/python');
  const listing = await run(
    python,
    [
      '-c',
      'import json, sys, zipfile; print(json.dumps(zipfile.ZipFile(sys.argv[1]).namelist()))',
      path.join(wheels, wheel!),
    ],
    { cwd: scratch },
  );
  wheelFiles = JSON.parse(listing.stdout) as string[];
  await run(python, ['-m', 'pip', 'install', '--no-index', '--no-deps', path.join(wheels, wheel!)], {
    cwd: scratch,
    env: pipEnv,
  });
  fs.mkdirSync(path.join(scratch, 'py-agent'));
  fs.writeFileSync(path.join(scratch, 'py-agent', 'agent.py'), PYTHON_AGENT);
}

/** The agent's account of itself: the outcome of each delivery of its one step, and where its client came from. */
interface AgentReport {
  client: string;
  version?: string;
  outcomes: Record<string, unknown>[];
}

async function runAgent(command: string, script: string, cwd: string, taskId: string): Promise<AgentReport> {
  const { stdout } = await run(command, [script], {
    cwd,
    env: cleanEnv({ HOLDFAST_URL: server.baseUrl, HOLDFAST_TOKEN: token, TASK_ID: taskId }),
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as AgentReport;
}

async function attemptsOf(taskId: string) {
  return database.sql`
    select attempt_number, outcome, error_class, source from attempts where task_id = ${taskId} order by attempt_number`;
}

const expectedAttempts = [
  { attempt_number: 1, outcome: 'failed', error_class: 'transient', source: 'http' },
  { attempt_number: 2, outcome: 'succeeded', error_class: null, source: 'http' },
];

describe('the TypeScript client as a package', () => {
  it('packs dist/ alone: ES modules importing zod (the adapters their frameworks too), their declarations, no database code', () => {
    expect(tsPacked.tarball).toMatch(/holdfast-client-\d+\.\d+\.\d+\.tgz$/);
    expect(tsPacked.files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/holdfast-mcp.js',
        ...['index', 'ai-sdk', 'openai-agents', 'langgraph'].flatMap((name) => [
          `dist/${name}.js`,
          `dist/${name}.d.ts`,
        ]),
      ]),
    );
    expect(tsPacked.files.filter((file) => !/^(package\.json|README\.md|dist\/.+\.(js|d\.ts))$/.test(file))).toEqual(
      [],
    );
    // Declarations of the client and of the protocol it bundles, nothing of the server's tree.
    expect(
      tsPacked.files.filter(
        (file) => file.startsWith('dist/types/') && !/^dist\/types\/(client|protocol)\/src\//.test(file),
      ),
    ).toEqual([]);

    const installed = path.join(tsProject(), 'node_modules/@holdfast/client');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@holdfast/client', type: 'module', dependencies: { zod: '^4.6.7' } });
    expect(Object.keys(manifest.dependencies)).toEqual(['zod']);
    // The frameworks are the agent's own: optional peers, never installed by the client.
    expect(Object.values(manifest.peerDependenciesMeta)).toEqual(
      Object.keys(manifest.peerDependencies).map(() => ({ optional: true })),
    );
    // The client itself (what `@holdfast/client` loads) imports no framework.
    const clientFiles = new Set(['dist/index.js', 'dist/index.d.ts']);
    const isClientFile = (file: string) =>
      clientFiles.has(file) || /^dist\/types\/(client\/src\/(?!adapters\/)|protocol\/)/.test(file);
    // The gateway's command is a program for Node: its module imports are Node's built-ins and zod.
    const program = fs.readFileSync(path.join(installed, 'dist/holdfast-mcp.js'), 'utf8');
    const programImports = [...program.matchAll(/^import\b[^'"]*(['"])([^'"]+)\1/gm)].map((m) => m[2]!);
    expect(programImports.filter((specifier) => !/^(node:|zod(\/|$))/.test(specifier))).toEqual([]);
    for (const file of tsPacked.files.filter((name) => name.startsWith('dist/') && name !== 'dist/holdfast-mcp.js')) {
      const text = fs.readFileSync(path.join(installed, file), 'utf8');
      const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)(['"])([^'"]+)\1/g)].map((m) => m[2]!);
      for (const specifier of specifiers) {
        if (!specifier.startsWith('.')) {
          const allowed = isClientFile(file) ? ['zod'] : ['zod', ...frameworkPackages];
          expect(allowed, `${file} imports ${specifier}`).toContain(
            specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          );
        } else {
          const target = path.resolve(path.dirname(path.join(installed, file)), specifier);
          const declaration = target.replace(/\.js$/, '.d.ts');
          expect(fs.existsSync(file.endsWith('.d.ts') ? declaration : target), `${file} imports ${specifier}`).toBe(
            true,
          );
        }
      }
    }
  });

  it('type-checks an agent against the installed package (strict, Node16 resolution, no skipLibCheck)', async () => {
    fs.writeFileSync(path.join(tsProject(), 'check.ts'), TYPESCRIPT_TYPE_CHECK);
    fs.writeFileSync(
      path.join(tsProject(), 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'DOM'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ['check.ts'],
      }),
    );
    const tsc = path.join(projectRoot, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: tsProject() });
  });

  it('runs an agent: a transient failure, then completed on attempt 2, then replayed', async () => {
    const taskId = `ts-${randomUUID()}`;
    const report = await runAgent(process.execPath, 'agent.mjs', tsProject(), taskId);
    expect(report.client).toBe(`file://${path.join(tsProject(), 'node_modules/@holdfast/client/dist/index.js')}`);
    expect(report.outcomes).toEqual([
      expect.objectContaining({ status: 'retry', attemptNumber: 1, errorClass: 'transient' }),
      { status: 'completed', attemptNumber: 2, taskStatus: 'completed', result: { summary: 'done on attempt 2' } },
      { status: 'replayed', result: { summary: 'done on attempt 2' } },
    ]);
    expect(await attemptsOf(taskId)).toEqual(expectedAttempts);
  });
});

describe('the AI SDK adapter from the package', () => {
  it('runs an AI SDK agent: a 503, then the answer on attempt 2, then the stored answer to a redelivery', async () => {
    const taskId = `ai-${randomUUID()}`;
    const { stdout } = await run(process.execPath, ['ai-agent.mjs'], {
      cwd: tsProject(),
      env: cleanEnv({ HOLDFAST_URL: server.baseUrl, HOLDFAST_TOKEN: token, TASK_ID: taskId }),
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { adapter: string; texts: string[]; calls: number };
    expect(report.adapter).toBe(`file://${path.join(tsProject(), 'node_modules/@holdfast/client/dist/ai-sdk.js')}`);
    // Two deliveries, three model calls asked for: the failed one, its retry, and none for the redelivery.
    expect(report).toMatchObject({ texts: ['Paid on the 3rd.', 'Paid on the 3rd.'], calls: 2 });
    expect(
      await database.sql`
        select attempt_number, outcome, error_class, cost_micros, cost_source from attempts
        where task_id = ${taskId} order by attempt_number`,
    ).toEqual([
      { attempt_number: 1, outcome: 'failed', error_class: 'transient', cost_micros: '0', cost_source: 'reported' },
      { attempt_number: 2, outcome: 'succeeded', error_class: null, cost_micros: '450', cost_source: 'priced' },
    ]);
  });
});

describe('the MCP gateway from the package', () => {
  it('is installed as holdfast-mcp, and charges once for two calls with one key', async () => {
    const taskKey = `pay-${randomUUID()}`;
    const effects = path.join(scratch, `effects-${taskKey}.txt`);
    const { stdout } = await run(process.execPath, ['mcp-client.mjs'], {
      cwd: tsProject(),
      env: cleanEnv({
        HOLDFAST_URL: server.baseUrl,
        HOLDFAST_TOKEN: token,
        HOLDFAST_MCP_KEY_SECRET: randomBytes(32).toString('hex'),
        PAYMENT_KEY: taskKey,
        EFFECTS_FILE: effects,
      }),
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { answers: unknown[] };
    // Both calls answered as the server answered the first, the second marked as its replay; the server charged once.
    expect(report.answers).toEqual([
      { content: [{ type: 'text', text: 'charged 1200 for order 7' }] },
      {
        content: [{ type: 'text', text: 'charged 1200 for order 7' }],
        _meta: { 'io.holdfast/replayed': { firstRunAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } },
      },
    ]);
    expect(fs.readFileSync(effects, 'utf8').trim().split('\n')).toEqual(['charge 7 1200']);
    expect(
      await database.sql`
        select agent, step, attempt_number, outcome from attempts where task_id like ${`mcp:key:${taskKey}:%`}`,
    ).toEqual([{ agent: 'packaged-mcp-client', step: 'payments:charge', attempt_number: 1, outcome: 'succeeded' }]);
  });
});

describe('the Python client as a package', () => {
  it('builds a wheel of the holdfast module alone', () => {
    expect(wheelFiles.filter((file) => !file.includes('.dist-info/'))).toEqual(['holdfast.py']);
    expect(wheelFiles).toContain('holdfast-0.1.0.dist-info/METADATA');
  });

  it('runs an agent from a virtualenv: a transient failure, then completed on attempt 2, then replayed', async () => {
    const taskId = `py-${randomUUID()}`;
    const report = await runAgent(path.join(venv(), 'bin/python'), 'agent.py', path.join(scratch, 'py-agent'), taskId);
    expect(report.client).toMatch(
      new RegExp(`^${path.join(venv(), 'lib')}/python3\\.\\d+/site-packages/holdfast\\.py$`),
    );
    expect(report.version).toBe('0.1.0');
    expect(report.outcomes).toEqual([
      expect.objectContaining({ status: 'retry', attempt_number: 1, error_class: 'transient' }),
      expect.objectContaining({
        status: 'completed',
        attempt_number: 2,
        task_status: 'completed',
        result: { summary: 'done on attempt 2' },
      }),
      expect.objectContaining({ status: 'replayed', result: { summary: 'done on attempt 2' } }),
    ]);
    expect(await attemptsOf(taskId)).toEqual(expectedAttempts);
  });
});

/** Delivers its one step until it is done (as a queue would, after each retry's delay), then once more. */
const TYPESCRIPT_AGENT = `import { createHoldfastClient, runStep, StepError } from '@holdfast/client';

const holdfast = createHoldfastClient({ baseUrl: process.env.HOLDFAST_URL, token: process.env.HOLDFAST_TOKEN });
const input = {
  taskId: process.env.TASK_ID,
  agent: 'packaged-agent',
  owner: 'team:platform',
  step: 'summarize',
  content: { source: 'q3.pdf' },
  final: true,
};
let calls = 0;
const summarize = async (attempt) => {
  calls += 1;
  if (calls === 1) throw new StepError('transient', 'the model answered 503');
  return { result: { summary: \`done on attempt \${attempt.attemptNumber}\` }, costMicros: 1200 };
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const outcomes = [];
for (let delivery = 0; delivery < 10; delivery++) {
  const outcome = await runStep(holdfast, input, summarize);
  outcomes.push(outcome);
  if (outcome.status === 'retry') await sleep(outcome.delayMs);
  else if (outcome.status === 'wait') await sleep(outcome.retryAfterMs);
  else break;
}
outcomes.push(await runStep(holdfast, input, summarize));
console.log(JSON.stringify({ client: import.meta.resolve('@holdfast/client'), outcomes }));
`;

/** An agent on the AI SDK, its model the SDK's own mock: delivered twice, as a queue redelivers. */
const AI_SDK_AGENT = `import { APICallError, generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createHoldfastClient } from '@holdfast/client';
import { holdfastTask } from '@holdfast/client/ai-sdk';

const client = createHoldfastClient({ baseUrl: process.env.HOLDFAST_URL, token: process.env.HOLDFAST_TOKEN });
let calls = 0;
const model = new MockLanguageModelV4({
  provider: 'openai.responses',
  modelId: 'gpt-4o-mini',
  doGenerate: async () => {
    calls += 1;
    if (calls === 1) {
      throw new APICallError({ message: 'HTTP 503', url: 'http://127.0.0.1:9/', requestBodyValues: {}, statusCode: 503 });
    }
    return {
      content: [{ type: 'text', text: 'Paid on the 3rd.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1000, noCache: 1000 }, outputTokens: { total: 500, text: 500 } },
      warnings: [],
    };
  },
});
const texts = [];
for (let delivery = 0; delivery < 2; delivery++) {
  const holdfast = holdfastTask({ client, task: { taskId: process.env.TASK_ID, agent: 'packaged-ai-agent', owner: 'team:platform' } });
  const answer = await generateText({
    model: wrapLanguageModel({ model, middleware: holdfast.model('answer') }),
    prompt: 'Is invoice 9 paid?',
    maxRetries: 0,
  });
  texts.push(answer.text);
}
console.log(JSON.stringify({ adapter: import.meta.resolve('@holdfast/client/ai-sdk'), texts, calls }));
`;

/**
 * A payments MCP server without the SDK (the agent's project has none): newline-delimited JSON-RPC over stdio,
 * as the MCP stdio transport speaks it, with one tool that acts (and writes each charge to a file).
 */
const MCP_UPSTREAM_SERVER = `import fs from 'node:fs';
import readline from 'node:readline';

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  if (request.id === undefined) continue; // a notification
  if (request.method === 'initialize') {
    send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'payments', version: '1.0.0' } } });
  } else if (request.method === 'tools/list') {
    send({ id: request.id, result: { tools: [{ name: 'charge', description: 'Charge an order', inputSchema: { type: 'object', properties: { order: { type: 'number' }, cents: { type: 'number' } } } }] } });
  } else if (request.method === 'tools/call') {
    const { order, cents } = request.params.arguments;
    fs.appendFileSync(process.env.EFFECTS_FILE, \`charge \${order} \${cents}\\n\`);
    send({ id: request.id, result: { content: [{ type: 'text', text: \`charged \${cents} for order \${order}\` }] } });
  } else {
    send({ id: request.id, error: { code: -32601, message: 'no such method' } });
  }
}
`;

/** An MCP client, also without the SDK: starts the installed gateway in front of the server and calls twice. */
const MCP_CLIENT = `import { spawn } from 'node:child_process';
import readline from 'node:readline';

const gateway = spawn('node_modules/.bin/holdfast-mcp', [
  '--holdfast-url', process.env.HOLDFAST_URL, '--server-name', 'payments', '--owner', 'team:platform',
  '--agent', 'packaged-mcp-client',
  '--', process.execPath, 'payments-server.mjs',
], { stdio: ['pipe', 'pipe', 'inherit'] });
const pending = new Map();
readline.createInterface({ input: gateway.stdout }).on('line', (line) => {
  const message = JSON.parse(line);
  pending.get(message.id)?.(message);
});
let nextId = 1;
const request = (method, params) => new Promise((resolve) => {
  const id = nextId++;
  pending.set(id, resolve);
  gateway.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\\n');
});
await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'packaged-mcp-client', version: '1.0.0' } });
gateway.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\\n');
const call = () => request('tools/call', { name: 'charge', arguments: { order: 7, cents: 1200 }, _meta: { 'io.holdfast/key': process.env.PAYMENT_KEY } });
const answers = [];
for (let time = 0; time < 2; time++) {
  const answer = await call();
  answers.push(answer.result ?? answer.error);
}
gateway.kill('SIGTERM');
console.log(JSON.stringify({ answers }));
`;

/** Real types: each @ts-expect-error fails the check if the package's types were missing or any. */
const TYPESCRIPT_TYPE_CHECK = `import { createHoldfastClient, HoldfastApiError, runStep, StepError, type RunStepOutcome } from '@holdfast/client';

const holdfast = createHoldfastClient({ baseUrl: 'http://127.0.0.1:3000', token: 'hf_example' });
const input = { taskId: 't', agent: 'a', owner: 'team:a', step: 's', content: {} };

export async function summarize(): Promise<RunStepOutcome<{ words: number }>> {
  // @ts-expect-error taskId is a string
  await holdfast.beginStep({ ...input, taskId: 1 });
  const begun = await holdfast.beginStep(input);
  if (begun.decision === 'run') begun.fencingToken.toFixed();
  // @ts-expect-error not an error class
  void new StepError('sometimes', 'no such class');
  void HoldfastApiError;
  return runStep(holdfast, input, async (attempt) => ({ result: { words: attempt.attemptNumber }, costMicros: 1 }));
}
`;

const PYTHON_AGENT = `import dataclasses, importlib.metadata, json, os, time
import holdfast
from holdfast import HoldfastClient, StepError, run_step

client = HoldfastClient(os.environ["HOLDFAST_URL"], os.environ["HOLDFAST_TOKEN"])
step_input = {"taskId": os.environ["TASK_ID"], "agent": "packaged-agent", "owner": "team:platform",
              "step": "summarize", "content": {"source": "q3.pdf"}, "final": True}
calls = 0

def summarize(attempt):
    global calls
    calls += 1
    if calls == 1:
        raise StepError("transient", "the model answered 503")
    return {"summary": f"done on attempt {attempt.attempt_number}"}, 1200

outcomes = []
for _ in range(10):
    outcome = run_step(client, step_input, summarize)
    outcomes.append(dataclasses.asdict(outcome))
    if outcome.status == "retry":
        time.sleep(outcome.delay_ms / 1000)
    elif outcome.status == "wait":
        time.sleep(outcome.retry_after_ms / 1000)
    else:
        break
outcomes.append(dataclasses.asdict(run_step(client, step_input, summarize)))
print(json.dumps({"client": holdfast.__file__, "version": importlib.metadata.version("holdfast"), "outcomes": outcomes}))
`;
