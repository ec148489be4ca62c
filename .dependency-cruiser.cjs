/**
 * The layer rules of the house (see README, Architecture), checked by `npm run lint`
 * and so by CI. Data flows agent -> lib/core -> PostgreSQL -> read models -> pages;
 * each rule below names a dependency that would break that.
 */
module.exports = {
  forbidden: [
    {
      name: 'core-is-the-library',
      comment:
        'lib/core is what agents and scripts import: it must not depend on Next, the server glue, read models, the console, pages, the analytics, the scheduler or the rooms built on it.',
      severity: 'error',
      from: { path: '^lib/core/' },
      to: {
        path: [
          '^node_modules/next/',
          '^lib/server/',
          '^lib/queries/',
          '^lib/filters/',
          '^lib/console/',
          '^app/',
          '^components/',
          '^lib/fleet/',
          '^lib/demo/',
          '^lib/rollups/',
          '^lib/scheduler/',
          '^lib/alerts/',
          '^lib/metrics/',
          '^lib/traces/',
          '^lib/auth/',
        ],
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
          '^lib/rollups/',
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
        "lib/console is the pages' presentation (labels, formatting, links, columns), above the read models: a read model or the analytics storage under it never imports it.",
      severity: 'error',
      from: { path: '^lib/(queries|rollups)/' },
      to: { path: '^lib/console/' },
    },
    {
      name: 'rollups-sit-below-the-read-models',
      comment:
        'lib/rollups is the analytics storage the read models read through (and the alert sweep, in plain Node): it never imports a read model. A type both need lives in lib/rollups.',
      severity: 'error',
      from: { path: '^lib/rollups/' },
      to: { path: '^lib/queries/' },
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
        "lib/alerts and lib/metrics read the library and the read models, and lib/scheduler runs the library's and the analytics' passes; nothing below them imports them, so the library stays whole without them.",
      severity: 'error',
      from: { path: '^lib/(core|db|rollups|filters|queries|api)/' },
      to: { path: '^lib/(alerts|metrics|scheduler)/' },
    },
    {
      name: 'alerts-metrics-and-scheduler-run-outside-next',
      comment:
        'The sweeper runs the scheduled passes and the alerts in plain Node: no Next, server glue, pages or components.',
      severity: 'error',
      from: { path: '^lib/(alerts|metrics|scheduler)/' },
      to: { path: ['^node_modules/next/', '^lib/server/', '^app/', '^components/'] },
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
