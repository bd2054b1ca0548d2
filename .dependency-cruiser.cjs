/**
 * The layers of libs/judgment/src, checked by `npm run lint` (the README's Architecture section lists them).
 *
 * A layer may import itself and the layers listed before it, never a later one; folders sharing a layer never import
 * each other. Together with `no-circular` (type-only imports included) this rules out cycles between files and
 * between folders. The violations still known live in .dependency-cruiser-known-violations.json.
 */
const SRC = '^libs/judgment/src/';

/** Lowest first. Each entry: a name and the folders (or root files) that form the layer. */
const LAYERS = [
  { name: 'errors', folders: ['errors/', 'judgment\\.defaults\\.ts$'] },
  { name: 'fingerprint', folders: ['fingerprint/'] },
  { name: 'questions', folders: ['questions/'] },
  { name: 'definition', folders: ['definition/'] },
  { name: 'assessment', folders: ['assessment/'] },
  // The Decision contract builds on the Assessment it decides: the decorator, its metadata, and applying it.
  { name: 'decision', folders: ['decision/'] },
  // The calibration lock file: what a Decision was calibrated under, read by the drift guard and written by `eval`.
  { name: 'lock', folders: ['lock/'] },
  // Name ⇄ class for Judgments and Decisions, as stored names are read back.
  { name: 'registry', folders: ['registry/'] },
  // The Engine contract: what a connection's options name as a driver class, and what every driver implements.
  { name: 'engine-contract', folders: ['engines/engine\\.interface\\.ts$'] },
  // The module's options and tokens: every service below the wiring reads them.
  {
    name: 'options',
    folders: ['judgment\\.options\\.ts$', 'judgment\\.constants\\.ts$', 'judgment\\.module-definition\\.ts$'],
  },
  // The package's log lines through Nest's Logger (one line, or an object for a JSON logger): under everything that
  // logs, the Engines' configuration warnings included.
  { name: 'logging', folders: ['logging/'] },
  // Spans, trace context and metric instruments through @opentelemetry/api: under the drivers and everything that
  // reports what it does.
  { name: 'telemetry', folders: ['telemetry/'] },
  { name: 'engines', folders: ['engines/(?!engine\\.interface\\.ts$)'] },
  // The rows: the entity, its migrations and the RecordWriter (single rows).
  { name: 'persistence', folders: ['persistence/'] },
  // Events carry records; the judge announces and caches, so events and the cache sit below it.
  { name: 'events-cache', folders: ['events/', 'cache/'] },
  // The signal-collapse guard: watches each connection and model's recent answers against the lock's figures; the
  // judge feeds it, and deciding asks it.
  { name: 'signal', folders: ['signal/'] },
  // Where a decided case goes: the guards (calibration drift, the audit sample) and the router that asks them and
  // computes the decision plan. Policy only: recording carries the plan out.
  { name: 'routing', folders: ['routing/'] },
  // The Recorder, the one owner of the Assessment ↔ record link: records each attempt and decision, announces them.
  { name: 'recording', folders: ['recording/'] },
  { name: 'judge', folders: ['judge/'] },
  // Who may resolve (ResolutionPolicy) and the ReviewResolver that resolves a record in Review.
  { name: 'review', folders: ['review/'] },
  // Work on stored records: Replay (and deciding from a record), queries, retention, and the AssessmentRecords facade
  // (which reaches review/ for resolve).
  { name: 'records', folders: ['records/'] },
  { name: 'services', folders: ['queue/', 'calibration/'] },
  // `judgment check`: reads every registered Judgment and Decision; run by the CLI and at startup.
  { name: 'checks', folders: ['checks/'] },
  // The module wiring sits under the kits: JudgmentTestingModule builds on JudgmentModule.
  {
    name: 'wiring',
    folders: [
      'judgment\\.module\\.ts$',
      'judgment-core\\.module\\.ts$',
      'judgment\\.named-classes\\.ts$',
      'judgment\\.discovery\\.ts$',
      'judgment\\.startup\\.ts$',
      'judgment\\.env\\.ts$',
    ],
  },
  { name: 'entry-points', folders: ['http/', 'cli/', 'testing/', 'drivers/', 'simulator/', 'index\\.ts$'] },
];

const pathOf = (folders) => `${SRC}(${folders.join('|')})`;

/**
 * Where the wiring finds the app's own providers (its CacheModule store, its ResolutionPolicy) with Nest's
 * DiscoveryService, once, when the app starts: the one file outside the CLI and the HTTP adapter that imports
 * @nestjs/core (ESLint refuses ModuleRef there as everywhere but the CLI).
 */
const STARTUP_DISCOVERY = `${SRC}judgment\\.discovery\\.ts$`;

const upwardRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name}-imports-upward`,
  comment: `${layer.name} may import only from ${
    LAYERS.slice(0, index)
      .map((l) => l.name)
      .join(', ') || 'no other layer'
  }.`,
  severity: 'error',
  from: { path: pathOf(layer.folders) },
  to: { path: pathOf(LAYERS.slice(index + 1).flatMap((l) => l.folders)) },
}));

// Root files of one layer are one folder (the root), so only layers of several real folders get a sibling rule.
const siblingRules = LAYERS.map((layer) => ({ ...layer, folders: layer.folders.filter((f) => f.endsWith('/')) }))
  .filter((layer) => layer.folders.length > 1)
  .map((layer) => ({
    name: `layer-${layer.name}-imports-sibling`,
    comment: `Folders of the ${layer.name} layer do not import each other; move what they share down a layer.`,
    severity: 'error',
    from: { path: pathOf(layer.folders) },
    to: { path: pathOf(layer.folders), pathNot: `${SRC}$1` },
  }));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files of the library import one another one way only (type-only imports count too).',
      severity: 'error',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'no-production-import-of-testing',
      comment: 'Production code never loads the testing kit or the test suites; testing builds on production.',
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}testing/` },
      to: { path: [`${SRC}testing/`, '^test/'] },
    },
    {
      name: 'no-relative-require',
      comment:
        'A lazy require() of our own file hides a cycle; import it. Only optional peer packages are required lazily.',
      severity: 'error',
      from: { path: SRC },
      // The one exception: the queue's registration loads the optional peers @nestjs/bullmq and bullmq, so the module
      // requires it only when the queue is on. Nothing else imports it, so no cycle can hide behind it.
      to: { dependencyTypes: ['require'], path: SRC, pathNot: `${SRC}queue/queue\\.registration\\.ts$` },
    },
    {
      name: 'no-service-location',
      comment:
        'Services are injected, never looked up: only the CLI (loading an app it did not write), the HTTP adapter ' +
        "(HttpAdapterHost) and the wiring's startup discovery (DiscoveryService, judgment.discovery.ts) import " +
        '@nestjs/core; ESLint refuses ModuleRef in all of them but the CLI.',
      severity: 'error',
      from: { path: SRC, pathNot: [`${SRC}(cli|http)/`, STARTUP_DISCOVERY] },
      to: { path: '(^|/)(node_modules/)?@nestjs/core(/|$)' },
    },
    {
      name: 'no-ambient-context',
      comment:
        "No AsyncLocalStorage carrying behaviour between layers: pass it with the call (a round's rate-limit mode " +
        'rides on the Engine request).',
      severity: 'error',
      from: { path: SRC },
      to: { dependencyTypes: ['core'], path: '^(node:)?async_hooks$' },
    },
    {
      name: 'no-routing-policy-in-recording',
      comment:
        'Where a decided case goes is policy (decision/decision-plan.ts, routing/): recording/ carries the plan out and ' +
        'never reads the calibration lock or asks a guard (drift, signal collapse, audit sample) itself; it hands the ' +
        'decision to the DecisionRouter.',
      severity: 'error',
      from: { path: `${SRC}recording/` },
      to: { path: `${SRC}(lock/|signal/|routing/(?!decision\\.router\\.ts$))` },
    },
    {
      name: 'no-plan-computed-in-recording',
      comment:
        'recording/ may name the DecisionPlan it carries out (a type), never compute one: planDecision and its inputs ' +
        'are the routing policy, asked through the DecisionRouter.',
      severity: 'error',
      from: { path: `${SRC}recording/` },
      to: { path: `${SRC}decision/decision-plan\\.ts$`, dependencyTypesNot: ['type-only'] },
    },
    ...upwardRules,
    ...siblingRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Specs may reach anything (they import internals from their source files on purpose). Type tests live in test/.
    exclude: { path: '\\.spec\\.ts$|\\.spec-helpers\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
