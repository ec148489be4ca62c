/**
 * The layer rules of the house (see README, Architecture), checked by `npm run lint`
 * and so by CI. Data flows agent -> packages/engine/src/core -> PostgreSQL -> read models -> pages;
 * each rule below names a dependency that would break that.
 */
module.exports = {
  forbidden: [
    {
      name: 'core-is-the-library',
      comment:
        "The engine's core is what agents and scripts import: it must not depend on Next or on the engine's rooms built on it (the analytics, the OTLP receiver, the alerts, the metrics, the scheduler). The app above it (server glue, read models, console, pages, demo) is out of its reach: the engine package cannot import it (its own type-check, rootDir).",
      severity: 'error',
      from: { path: '^packages/engine/src/core/' },
      to: {
        path: ['^node_modules/next/', '^packages/engine/src/(rollups|scheduler|alerts|metrics|traces)/'],
      },
    },
    {
      name: 'filters-are-inputs',
      comment:
        'lib/filters read what a URL asks for into what the read models take: they sit below the read models, so they never import them, the analytics storage under them, the presentation above them, the server glue or Next.',
      severity: 'error',
      from: { path: '^lib/filters/' },
      to: {
        path: [
          '^lib/queries/',
          '^packages/engine/src/rollups/',
          '^lib/console/',
          '^lib/server/',
          '^lib/fleet/',
          '^lib/demo/',
          '^app/',
          '^components/',
          '^node_modules/next/',
        ],
      },
    },
    {
      name: 'read-models-import-no-presentation',
      comment:
        "lib/console is the pages' presentation (labels, formatting, links, columns), above the read models: a read model never imports it.",
      severity: 'error',
      from: { path: '^lib/queries/' },
      to: { path: '^lib/console/' },
    },
    {
      name: 'queries-know-no-demo',
      comment: 'The production read models must not count the demo fleet.',
      severity: 'error',
      from: { path: '^lib/queries/' },
      to: { path: ['^lib/fleet/', '^lib/demo/'] },
    },
    {
      name: 'packages-by-name',
      comment:
        "The workspace packages (packages/protocol, packages/client) are imported by their names, through their exports maps (a file they do not export is a compile error); a relative path into a package's sources would step around that. Tests may reach a package's internals.",
      severity: 'error',
      from: { path: '^(lib|app|components|scripts|proxy\\.ts)' },
      to: { path: '^packages/', dependencyTypesNot: ['aliased-workspace'] },
    },
    {
      name: 'the-app-never-loads-the-adapters',
      comment: 'The framework adapters are for agents: the server, the library and the console never load them.',
      severity: 'error',
      from: { path: '^(lib|app|components|scripts)/' },
      to: { path: '^packages/client/src/adapters/' },
    },
    {
      name: 'alerts-metrics-and-scheduler-sit-above-the-library',
      comment:
        "The engine's alerts and metrics read the library and the analytics, and its scheduler runs the library's and the analytics' passes; nothing below them imports them, so the library stays whole without them.",
      severity: 'error',
      from: { path: '^packages/engine/src/(core|db|rollups|net)/' },
      to: { path: '^packages/engine/src/(alerts|metrics|scheduler)/' },
    },
    {
      name: 'the-engine-runs-outside-next',
      comment:
        'The engine runs in plain Node too (the sweeper, the scripts, agents in-process): no Next and no server-only.',
      severity: 'error',
      from: { path: '^packages/engine/' },
      to: { path: ['^node_modules/next/', '^node_modules/server-only/'] },
    },
    {
      name: 'read-source-notice-is-plain',
      comment:
        "lib/server/read-source/notice.ts is the one file of the server glue a client island may import (the Overview says where each poll was read from): it imports nothing, so it never drags the database, Next's server code or server-only into the browser.",
      severity: 'error',
      from: { path: '^lib/server/read-source/notice\\.ts$' },
      to: { path: '.' },
    },
    {
      name: 'components-are-not-pages',
      comment: 'Shared components never import a page or its actions.',
      severity: 'error',
      from: { path: '^components/' },
      to: { path: '^app/' },
    },
    {
      name: 'briefing-agent-knows-only-opentelemetry',
      comment:
        "The demo's briefing agent shows what Holdfast sees of an agent with no Holdfast client: it imports the OpenTelemetry packages and the fleet's simulated downstreams, nothing else.",
      severity: 'error',
      from: { path: '^lib/fleet/briefing-(agent|exporter)\\.ts$' },
      to: {
        pathNot: ['^node_modules/@opentelemetry/', '^lib/fleet/(briefing-agent|chance|faults|model)\\.ts$'],
      },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // swc as dependency-cruiser drives it reads .ts but not JSX, so the .tsx pages and
    // components are checked by scripts/ci/tsx-layer-rules.ts instead (also in `npm run lint`).
    exclude: { path: ['^node_modules', '^\\.next', '\\.tsx$'] },
    // TypeScript 7 has no JS API for tools to load; swc parses the sources instead.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
