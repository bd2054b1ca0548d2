// The README's Configuration tables against the code: every default the module applies is listed with its value,
// and every variable's documented default is what judgmentOptionsFromEnv() and the resolved options give.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectionLimits } from './engines/limits/connection-limits';
import { JUDGMENT_DEFAULTS } from './judgment.defaults';
import { judgmentOptionsFromEnv, judgmentQueueAttemptsFromEnv } from './judgment.env';
import { resolveJudgmentOptions, resolveQueueOptions } from './judgment.options';

const README = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** The rows of every README table whose header starts with `first`: the first cell's code and the Default cell. */
function rows(first: RegExp): Array<{ option: string; default: string | null; line: string }> {
  const found: Array<{ option: string; default: string | null; line: string }> = [];
  const lines = README.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!first.test(lines[i]) || !/\| Default \|/.test(lines[i])) continue;
    const prefix = /`queue\.` option/.test(lines[i]) ? 'queue.' : '';
    for (let j = i + 2; j < lines.length && lines[j].startsWith('|'); j += 1) {
      const [name, value] = lines[j].split(/(?<!\\)\|/).slice(1, 3);
      const option = /`([^`]+)`/.exec(name)?.[1];
      if (option)
        found.push({ option: prefix + option, default: /`([^`]+)`/.exec(value)?.[1] ?? null, line: lines[j] });
    }
  }
  return found;
}

/** A default as the README writes it: strings bare, objects as a literal (`{ type: 'exponential', delay: 1000 }`). */
function written(value: unknown, nested = false): string {
  if (typeof value === 'string') return nested ? `'${value}'` : value;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, inner]) => `${key}: ${written(inner, true)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return String(value);
}

/** JUDGMENT_DEFAULTS by the option path the README names: `engines.<name>.timeout`, `queue.attempts`, ... */
function documentedDefaults(): Map<string, unknown> {
  const paths = new Map<string, unknown>();
  for (const [key, value] of Object.entries(JUDGMENT_DEFAULTS)) {
    const groups: Record<string, string> = {
      persistence: 'persistence.',
      calibration: 'calibration.',
      limiter: 'limiter.',
      review: 'review.',
      queue: 'queue.',
      connection: 'engines.<name>.',
    };
    if (!(key in groups)) {
      paths.set(key, value);
      continue;
    }
    for (const [option, inner] of Object.entries(value as object)) {
      const nested: Record<string, string> = {
        limitWindowSeconds: 'limits.windowSeconds',
        priceCurrency: 'price.currency',
      };
      const path = nested[option] ?? option;
      paths.set(groups[key] + path, inner);
    }
  }
  return paths;
}

describe("the README's Configuration tables", () => {
  const options = rows(/^\| (Option|`queue\.` option) \|/);

  it('list every default of judgment.defaults.ts with its value', () => {
    const documented = new Map(options.map((row) => [row.option, row]));
    for (const [option, value] of documentedDefaults()) {
      const row = documented.get(option);
      expect({ option, row: row?.line ?? 'no row in the README' }).toEqual({ option, row: expect.any(String) });
      expect({ option, default: row?.default }).toEqual({ option, default: written(value) });
    }
  });

  it('name only options the module has', () => {
    const resolved = Object.keys(resolveJudgmentOptions({}));
    const given = new Set([
      ...documentedDefaults().keys(),
      'engines',
      'engines.<name>.price',
      'drivers',
      'resolutionPolicy',
      'limiter.redis',
      'engines.<name>.limits.burst',
    ]);
    for (const { option } of options) {
      const root = option.split('.')[0];
      const known =
        given.has(option) ||
        option.startsWith('queue.') ||
        resolved.includes(root) ||
        ['dataSource', 'queue', 'driverClasses'].includes(root);
      expect({ option, known }).toEqual({ option, known: true });
    }
  });

  it("give each variable's documented default as the options read from an empty environment have it", () => {
    const fromEnv = resolveJudgmentOptions(judgmentOptionsFromEnv({}));
    const laya = judgmentOptionsFromEnv({ LAYA_API_KEY: 'key' }).engines?.laya;
    const jev = fromEnv.connections.jev;
    const queue = resolveQueueOptions(judgmentQueueAttemptsFromEnv({}));
    const window = connectionLimits('jev', { limits: { requestsPerMinute: 60 } })?.windowSeconds;
    /** What each variable with a default in the table sets, read back. */
    const read: Record<string, unknown> = {
      JUDGMENT_ENGINE: fromEnv.defaultConnection,
      TYPESAFE_BASE_URL: jev.url,
      JUDGMENT_JEV_MODEL: jev.model,
      JUDGMENT_JEV_ALLOW_ALIASES: jev.allowAliases,
      JUDGMENT_JEV_TIMEOUT: jev.timeout,
      JUDGMENT_JEV_RETRIES: jev.retries,
      LAYA_BASE_URL: laya?.url,
      JUDGMENT_LAYA_MODEL: laya?.model,
      JUDGMENT_LAYA_ALLOW_ALIASES: laya?.allowAliases,
      JUDGMENT_LAYA_TIMEOUT: laya?.timeout,
      JUDGMENT_LAYA_RETRIES: laya?.retries,
      JUDGMENT_LAYA_MAX_LABELS: laya?.maxLabels,
      JUDGMENT_JEV_LIMIT_WINDOW: window,
      JUDGMENT_LIMIT_MAX_WAIT: fromEnv.limiter.maxWaitMs / 1000,
      JUDGMENT_THROW_ON_FAILURE: fromEnv.throwOnFailure,
      JUDGMENT_PERSIST: fromEnv.persistence.enabled,
      JUDGMENT_PERSIST_REQUIRED: fromEnv.persistence.required,
      JUDGMENT_PERSIST_EVIDENCE: fromEnv.persistence.evidence,
      JUDGMENT_RETENTION_DAYS: fromEnv.persistence.retentionDays,
      JUDGMENT_LOG: fromEnv.log,
      JUDGMENT_STRICT_EVIDENCE_PATHS: fromEnv.strictEvidencePaths,
      JUDGMENT_MAX_EVIDENCE_BYTES: fromEnv.maxEvidenceBytes,
      JUDGMENT_QUEUE_TRIES: queue.attempts,
      JUDGMENT_QUEUE_DECIDE_TRIES: queue.decideAttempts,
    };
    const variables = rows(/^\| Variable \| Default \|/).filter(
      (row) => /^(JUDGMENT_|TYPESAFE_|LAYA_)/.test(row.option) && row.default !== null,
    );
    expect(variables.length).toBeGreaterThan(20);
    for (const { option, default: documented } of variables) {
      expect({ variable: option, read: option in read }).toEqual({ variable: option, read: true });
      expect({ variable: option, default: documented }).toEqual({ variable: option, default: written(read[option]) });
    }
  });
});
