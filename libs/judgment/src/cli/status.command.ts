import type { Command } from 'commander';
import type { Queue } from 'bullmq';
import { EngineManager } from '../engines/engine.manager';
import { LIVE_LIMITS } from '../engines/engine.interface';
import { Likelihood } from '../questions/likelihood';
import type { LimitUsage } from '../engines/limits/connection.limiter';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import type { AssessQueues, ConnectionQueue } from '../queue/assess-queues';
import { ASSESS_QUEUES } from '../queue/queue.constants';
import { parseDuration } from '../decision/duration';
import type { ResolvedPrice } from '../engines/pricing/connection-price';
import { RecordWriter } from '../persistence/record.writer';
import { type JudgmentCost, costPerDecision } from '../records/decision-costs';
import type { CliContext } from './cli.context';
import { type JudgmentBacklogForecast, ReviewBacklog } from '../review/review-backlog.service';
import { BACKLOG_FORECAST_METHOD, FORECAST_WINDOW_HOURS } from '../review/backlog-forecast';
import { CliUsageError } from './cli.errors';
import { fail, print, printJson, table } from './cli.output';
import { type ReviewerAgreementReport, reviewerAgreementReport } from './reviewer-agreement.format';

/** The window `status` reads the records' costs over unless `--since` says otherwise. */
export const DEFAULT_COST_WINDOW = '30d';

/** One connection as `status` shows it: configuration only, the key's presence but never the key. */
export interface ConnectionReport {
  readonly connection: string;
  readonly default: boolean;
  readonly driver: string | null;
  readonly keyPresent: boolean;
  readonly model: string | null;
  readonly pinned: boolean;
  readonly url: string | null;
  /** Seconds per attempt. */
  readonly timeout: number | null;
  readonly retries: number | null;
  readonly maxLabels: number | null;
  readonly budget: number | null;
  /** The connection's rate limits, and where they are counted (`redis`: every process; `process`: each alone). */
  readonly limits: {
    readonly requestsPerMinute: number | null;
    readonly tokensPerMinute: number | null;
    readonly windowSeconds: number;
    readonly store: 'redis' | 'process';
  } | null;
  /** What the current window of the limits has used (from Redis when shared); null without limits. */
  readonly window: LimitUsage | null;
  /** Input tokens spent by this process (0 in a fresh CLI process). */
  readonly used: number;
  /** What the connection charges (`engines.<name>.price`), or null when it declares none. */
  readonly price: ResolvedPrice | null;
  readonly configured: boolean;
  readonly problem: string | null;
  /** What one request asked with `--ping` got (absent without `--ping`). */
  readonly ping?: PingReport;
}

/** One connection's answer to `status --ping`: one small round, billed like any other. */
export interface PingReport {
  readonly reachable: boolean;
  /** How long the round took, in milliseconds. */
  readonly ms: number;
  /** The model the Engine answered as; null when it did not answer. */
  readonly model: string | null;
  /** Why it did not answer (the Engine error's message), or null. */
  readonly problem: string | null;
}

/** A connection's assess queue: its backlog, and how long it takes to drain at the connection's request limit. */
export interface QueueReport {
  readonly name: string;
  /** The Engine connection whose Judgments the queue holds. */
  readonly connection: string;
  /** Jobs waiting to run (prioritized ones included) and delayed ones. */
  readonly waiting: number;
  readonly delayed: number;
  readonly active: number;
  /** BullMQ's global rate limit of the queue, as stored in Redis. */
  readonly rateLimit: { readonly max: number; readonly durationMs: number } | null;
  /** Seconds to run the backlog at the rate limit; null without one. */
  readonly drainSeconds: number | null;
}

/** What `status --json` prints. */
export interface StatusReport {
  /** The default connection's name (null when none is set). */
  readonly default: string | null;
  /** Whether the default connection is configured (the exit status is 0 exactly then). */
  readonly configured: boolean;
  readonly connections: readonly ConnectionReport[];
  /** The default connection's assess queue, when the queue is enabled (also the first of `queues`). */
  readonly queue: QueueReport | null;
  /** Every connection's assess queue, the default connection's first; empty when the queue is off. */
  readonly queues: readonly QueueReport[];
  /**
   * Each Judgment's Review backlog forecast against its deadlines (BACKLOG_FORECAST_METHOD), with cases in Review now
   * or in the last 24 h; null when there are no records (persistence off or no database).
   */
  readonly backlog: readonly JudgmentBacklogForecast[] | null;
  /** Why there is no backlog forecast (no records, or they could not be read), or null. */
  readonly backlogProblem: string | null;
  /** Cost per decision of each Judgment over the recorded window (absent from `statusReport` alone). */
  readonly costs?: CostReport;
  /**
   * Reviewers' agreement on N-of-M votes: raw agreement and Cohen's kappa per Judgment and per reviewer pair, with
   * their counts (absent from `statusReport` alone).
   */
  readonly reviewerAgreement?: ReviewerAgreementReport;
}

/** What each Judgment's records cost per decision over the window `--since` (default DEFAULT_COST_WINDOW). */
export interface CostReport {
  /** The window as given, e.g. `30d`. */
  readonly window: string;
  /** The window's start (ISO 8601). */
  readonly since: string;
  /** One entry per Judgment and currency; empty without records in the window. */
  readonly judgments: readonly JudgmentCost[];
  /** Why the records could not be read (persistence off, no DataSource, a database error), or null. */
  readonly problem: string | null;
}

/**
 * `judgment status [--json] [--ping]`: each Engine connection's driver, key presence, model (pinned or alias), URL,
 * timeout, retries and budget, read from the configuration without any network call. `--ping` then asks each
 * configured connection one small round (one request, billed like any other) and reports whether it answered. Exit 0
 * when the default connection is configured (and with `--ping`, answered), 1 when not.
 */
export function addStatusCommand(program: Command, context: CliContext): void {
  program
    .command('status')
    .description('Show the Engine connections and whether the default one is configured')
    .option('--json', 'print only JSON')
    .option('--ping', 'ask each configured connection one request (billed like any other) to check it answers')
    .option(
      '--since <duration>',
      `the window of records the cost per decision is read over, e.g. 24h, 7d (default ${DEFAULT_COST_WINDOW})`,
    )
    .action((options: { json?: boolean; ping?: boolean; since?: string }) =>
      runStatus(context, options.json === true, options.ping === true, options.since ?? DEFAULT_COST_WINDOW),
    );
}

/** The longest `--since`: ten years. */
const MAX_COST_WINDOW_MS = 10 * 365 * 86_400_000;

async function runStatus(context: CliContext, json: boolean, ping: boolean, window: string): Promise<void> {
  try {
    const since = parseDuration(window, { min: 1000, max: MAX_COST_WINDOW_MS, text: '1 second to 10 years' });
    if ('problem' in since) throw new CliUsageError(`--since: ${since.problem}.`);
    await context.start();
    const engines = context.get(EngineManager);
    let report = await statusReport(
      engines,
      context.get<ResolvedJudgmentOptions>(RESOLVED_JUDGMENT_OPTIONS),
      assessQueues(context),
    );
    report = { ...report, ...(await backlogForecast(context)) };
    if (ping) {
      const asked = report.connections.filter((connection) => connection.configured).length;
      if (!json)
        print(
          `Pinging ${asked} connection${asked === 1 ? '' : 's'}: one request each, billed like any other ` +
            "(a 429 or 5xx answer is retried up to the connection's retries).",
        );
      report = await withPings(engines, report);
    }
    report = { ...report, costs: await costReport(context, window, new Date(Date.now() - since.ms)) };
    report = { ...report, reviewerAgreement: await agreementReport(context) };
    if (json) printJson(report);
    else print(formatStatus(report));
    const answered = !ping || report.connections.some((connection) => connection.default && connection.ping?.reachable);
    process.exitCode = report.configured && answered ? 0 : 1;
  } catch (error) {
    fail(error, json);
  }
}

/** Each Judgment's Review backlog forecast, or why there is none (no records, or the app could not give them). */
async function backlogForecast(context: CliContext): Promise<Pick<StatusReport, 'backlog' | 'backlogProblem'>> {
  try {
    const rows = context.get(RecordWriter);
    if (!rows.persistence.enabled || rows.dataSource() === null) {
      return { backlog: null, backlogProblem: 'no records (persistence is off)' };
    }
    return { backlog: await context.get(ReviewBacklog).forecast(), backlogProblem: null };
  } catch (error) {
    return {
      backlog: null,
      backlogProblem: `the records could not be read (${(error as Error).message.replace(/\.$/, '')})`,
    };
  }
}

/** The backlog forecast as a table and the method, or why there is none. */
function formatBacklog(report: StatusReport): string[] {
  const backlog = report.backlog;
  if (backlog === null) return [`Review backlog: no forecast, ${report.backlogProblem ?? 'no records'}.`];
  if (backlog.length === 0) {
    return [`Review backlog: no case in Review now nor in the last ${FORECAST_WINDOW_HOURS} h.`];
  }
  const perHour = (value: number) => (Math.round(value * 10) / 10).toFixed(1);
  return [
    table(
      [
        'Judgment',
        'In Review',
        `Arrivals/h (${FORECAST_WINDOW_HOURS} h)`,
        `Resolved/h (${FORECAST_WINDOW_HOURS} h)`,
        'Deadline',
        'Backlog at deadline',
        'Forecast to expire',
      ],
      backlog.map((f) => [
        f.judgment,
        f.inReview,
        perHour(f.arrivalsPerHour),
        perHour(f.resolutionsPerHour),
        f.deadline ?? 'none',
        f.backlogAtHorizon === null ? '—' : Math.round(f.backlogAtHorizon),
        f.horizonHours === null && f.atRisk === 0
          ? 'none (no deadline)'
          : f.atRisk === 0
            ? '0'
            : `${f.atRisk} AT RISK (${f.expiringInReview} in Review, ${f.expiringArrivals} arriving)`,
      ]),
    ),
    `Backlog forecast: ${BACKLOG_FORECAST_METHOD}`,
  ];
}

/** Cost per decision of each Judgment since `since`, or why the records could not be read. */
async function costReport(context: CliContext, window: string, since: Date): Promise<CostReport> {
  const report = { window, since: since.toISOString() };
  try {
    const rows = context.get(RecordWriter);
    if (!rows.persistence.enabled) {
      return { ...report, judgments: [], problem: 'Persistence is off: no records to read costs from.' };
    }
    return { ...report, judgments: await costPerDecision(rows, since), problem: null };
  } catch (error) {
    return { ...report, judgments: [], problem: (error as Error).message };
  }
}

/** The reviewers' agreement, or why it could not be read (persistence off among the reasons). */
async function agreementReport(context: CliContext): Promise<ReviewerAgreementReport> {
  try {
    if (!context.get(RecordWriter).persistence.enabled) {
      return { judgments: [], pairs: [], problem: 'Persistence is off: no votes to read.' };
    }
  } catch (error) {
    // The app did not start (a misconfigured Engine connection): status still reports the rest.
    return { judgments: [], pairs: [], problem: (error as Error).message };
  }
  return reviewerAgreementReport(context);
}

/** The question of a ping: one Likelihood, about nothing, over Evidence that says what it is. */
const PING_QUESTION = Likelihood.that('Is this message a connection test?');

/** The report with each configured connection pinged, one at a time (so each is one request, in order). */
async function withPings(engines: EngineManager, report: StatusReport): Promise<StatusReport> {
  const connections: ConnectionReport[] = [];
  for (const connection of report.connections) {
    connections.push(
      connection.configured ? { ...connection, ping: await pingConnection(engines, connection) } : connection,
    );
  }
  return { ...report, connections };
}

async function pingConnection(engines: EngineManager, connection: ConnectionReport): Promise<PingReport> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const { provenance } = await engines.connection(connection.connection).answer({
      questions: new Map([['test', PING_QUESTION]]),
      evidence: { message: 'A connection test from `judgment status --ping`.' },
      limits: LIVE_LIMITS,
    });
    return { reachable: true, ms: elapsed(), model: provenance.model, problem: null };
  } catch (error) {
    return { reachable: false, ms: elapsed(), model: null, problem: (error as Error).message };
  }
}

/** The app's assess queues (one per connection) when the queue is enabled and the app started; null otherwise. */
function assessQueues(context: CliContext): ConnectionQueue[] | null {
  try {
    const { queue } = context.get<ResolvedJudgmentOptions>(RESOLVED_JUDGMENT_OPTIONS);
    if (!queue.enabled) return null;
    return context.get<AssessQueues>(ASSESS_QUEUES).all();
  } catch {
    return null;
  }
}

/**
 * The status of the default connection and of every configured connection, and of the assess queues: each
 * connection's (from AssessQueues), or one Queue, taken as the default connection's.
 */
export async function statusReport(
  engines: EngineManager,
  options: ResolvedJudgmentOptions,
  queues: readonly ConnectionQueue[] | Queue | null = null,
): Promise<StatusReport> {
  let defaultName: string | null = null;
  let defaultProblem: string | null = null;
  try {
    defaultName = engines.defaultConnectionName();
  } catch (error) {
    defaultProblem = (error as Error).message;
  }
  const names = [...new Set([...(defaultName ? [defaultName] : []), ...Object.keys(options.connections)])];
  const connections = await Promise.all(names.map((name) => describeConnection(engines, name, name === defaultName)));
  const configured = connections.some((connection) => connection.default && connection.configured);
  const byConnection =
    queues === null ? [] : Array.isArray(queues) ? queues : [{ connection: defaultName ?? '', queue: queues as Queue }];
  const reports = await Promise.all(
    byConnection.map(({ connection, queue }) => {
      const limits = connections.find((report) => report.connection === connection)?.limits ?? null;
      return queueReport(queue, connection, limits?.requestsPerMinute ?? null);
    }),
  );
  return {
    default: defaultName,
    configured,
    connections: defaultProblem ? [unconfigured('(default)', true, defaultProblem), ...connections] : connections,
    queue: reports[0] ?? null,
    queues: reports,
    backlog: null,
    backlogProblem: null,
  };
}

async function queueReport(queue: Queue, connection: string, requestsPerMinute: number | null): Promise<QueueReport> {
  const counts = await queue.getJobCounts('wait', 'prioritized', 'delayed', 'active');
  const stored = await queue.getGlobalRateLimit();
  const waiting = (counts.wait ?? 0) + (counts.prioritized ?? 0);
  const backlog = waiting + (counts.delayed ?? 0) + (counts.active ?? 0);
  const perMinute = stored ? (stored.max * 60_000) / stored.duration : requestsPerMinute;
  return {
    name: queue.name,
    connection,
    waiting,
    delayed: counts.delayed ?? 0,
    active: counts.active ?? 0,
    rateLimit: stored ? { max: stored.max, durationMs: stored.duration } : null,
    drainSeconds: perMinute ? Math.ceil((backlog / perMinute) * 60) : null,
  };
}

async function describeConnection(engines: EngineManager, name: string, isDefault: boolean): Promise<ConnectionReport> {
  try {
    const status = engines.describe(name);
    const limiter = status.configured ? engines.limiter(name) : null;
    return {
      connection: name,
      default: isDefault,
      driver: status.driver,
      keyPresent: status.keyPresent,
      model: status.model,
      pinned: status.pinned,
      url: status.url,
      timeout: status.timeout,
      retries: status.retries,
      maxLabels: status.maxLabels,
      budget: status.budget,
      limits:
        status.limits && status.limitStore
          ? {
              requestsPerMinute: status.limits.requestsPerMinute,
              tokensPerMinute: status.limits.tokensPerMinute,
              windowSeconds: status.limits.windowSeconds,
              store: status.limitStore,
            }
          : null,
      window: limiter ? await limiter.usage() : null,
      used: status.used,
      price: status.price,
      configured: status.configured,
      problem: status.problem,
    };
  } catch (error) {
    return unconfigured(name, isDefault, (error as Error).message);
  }
}

function unconfigured(connection: string, isDefault: boolean, problem: string): ConnectionReport {
  return {
    connection,
    default: isDefault,
    driver: null,
    keyPresent: false,
    model: null,
    pinned: false,
    url: null,
    timeout: null,
    retries: null,
    maxLabels: null,
    budget: null,
    limits: null,
    window: null,
    used: 0,
    price: null,
    configured: false,
    problem,
  };
}

function formatStatus(report: StatusReport): string {
  const rows = report.connections.map((c) => [
    c.default ? `${c.connection} (default)` : c.connection,
    c.driver ?? '—',
    c.keyPresent ? 'present' : 'none',
    c.model === null ? '—' : `${c.model} (${c.pinned ? 'pinned' : 'alias'})`,
    c.url ?? '—',
    c.timeout === null ? '—' : `${c.timeout} s`,
    c.retries ?? '—',
    c.budget === null ? 'no limit' : `${c.budget} tokens`,
    `${c.used} tokens`,
    c.configured ? 'ok' : (c.problem ?? 'not configured'),
  ]);
  const limitRows = report.connections
    .filter((c) => c.limits)
    .map((c) => {
      const limits = c.limits!;
      const of = (used: number | null | undefined, perMinute: number | null) =>
        perMinute === null ? '—' : `${used ?? 0} of ${Math.floor((perMinute * limits.windowSeconds) / 60)}`;
      return [
        c.connection,
        [
          limits.requestsPerMinute ? `${limits.requestsPerMinute} requests/min` : null,
          limits.tokensPerMinute ? `${limits.tokensPerMinute} tokens/min` : null,
        ]
          .filter(Boolean)
          .join(', '),
        `${limits.windowSeconds} s`,
        limits.store === 'redis' ? 'Redis (all processes)' : 'this process only',
        of(c.window?.requests, limits.requestsPerMinute),
        of(c.window?.tokens, limits.tokensPerMinute),
        c.window && c.window.windowEndsInMs > 0 ? `${(c.window.windowEndsInMs / 1000).toFixed(1)} s` : '—',
      ];
    });
  const limitsTable = limitRows.length
    ? [
        table(
          ['Connection', 'Limits', 'Window', 'Counted in', 'Requests used', 'Tokens used', 'Window ends in'],
          limitRows,
        ),
      ]
    : [];
  const queueLines = report.queues.map(
    (queue) =>
      `Queue ${queue.name} (${queue.connection}): ${queue.waiting} waiting, ${queue.delayed} delayed, ` +
      `${queue.active} active` +
      (queue.rateLimit
        ? `; rate limit ${queue.rateLimit.max} per ${queue.rateLimit.durationMs / 1000} s; drains in about ` +
          `${queue.drainSeconds} s.`
        : '; no rate limit.'),
  );
  const pings = report.connections
    .filter((c) => c.ping)
    .map(({ connection, ping }) =>
      ping!.reachable
        ? `${connection}: answered in ${ping!.ms} ms as ${ping!.model}.`
        : `${connection}: not reachable: ${ping!.problem}`,
    );
  const prices = report.connections.filter((c) => c.price).map((c) => `${c.connection}: ${describePrice(c.price!)}.`);
  const pinged = report.connections.find((c) => c.default)?.ping;
  const verdict = !report.configured
    ? `The default connection${report.default ? ` "${report.default}"` : ''} is not configured.`
    : pinged && !pinged.reachable
      ? `The default connection "${report.default}" is configured, but did not answer the ping.`
      : `The default connection "${report.default}" is configured${pinged ? ' and answered' : ''}.`;
  return [
    table(['Connection', 'Driver', 'Key', 'Model', 'URL', 'Timeout', 'Retries', 'Budget', 'Used', 'Status'], rows, [
      ...Array<null>(9).fill(null),
      48,
    ]),
    ...limitsTable,
    ...prices,
    ...(report.costs ? [formatCosts(report.costs)] : []),
    ...queueLines,
    ...formatBacklog(report),
    ...pings,
    verdict,
  ].join('\n');
}

/** A price in words: `0.15 USD per 1M input tokens, 0.6 USD per 1M output tokens`. */
function describePrice(price: ResolvedPrice): string {
  const { currency } = price;
  return [
    price.inputPerMillion === null ? null : `${price.inputPerMillion} ${currency} per 1M input tokens`,
    price.outputPerMillion === null ? null : `${price.outputPerMillion} ${currency} per 1M output tokens`,
    price.perRequest === null ? null : `${price.perRequest} ${currency} per request`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** The cost per decision table, or a line saying why there is none. */
function formatCosts(costs: CostReport): string {
  const heading = `Cost per decision over the last ${costs.window} (since ${costs.since}):`;
  if (costs.problem !== null) return `${heading} not available: ${costs.problem}`;
  if (costs.judgments.length === 0) return `${heading} no records.`;
  const rows = costs.judgments.map((cost) => [
    cost.judgment,
    cost.records,
    cost.decisions,
    cost.total === null ? '—' : `${cost.total} ${cost.currency}`,
    cost.perDecision === null ? '—' : `${cost.uncosted > 0 ? '≥ ' : ''}${cost.perDecision} ${cost.currency}`,
    cost.uncosted,
  ]);
  const lowerBound = costs.judgments.some((cost) => cost.uncosted > 0 && cost.perDecision !== null)
    ? ['≥: some records have no cost (an unpriced connection, or a payment not known), so the figure is a floor.']
    : [];
  return [
    heading,
    table(['Judgment', 'Records', 'Decisions', 'Cost', 'Per decision', 'Without cost'], rows),
    ...lowerBound,
  ].join('\n');
}
