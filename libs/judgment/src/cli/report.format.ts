import type { CalibrationReport, CalibrationResult } from '../calibration/calibration.report';
import type { Interval } from '../calibration/scoring';
import { TEMPERATURE_RANGE } from '../calibration/temperature-fit';
import type { ResolutionTemperatures } from '../calibration/resolution-temperatures';
import { bold, languageLabel, percent, plural, table } from './cli.output';

/** A calibration report as text: a summary table, then per result its bands, scores and warnings. */
export function formatReport(report: CalibrationReport): string {
  const parts: string[] = [];
  if (report.skipped > 0) {
    parts.push(`Skipped ${plural(report.skipped, 'Resolution')} whose Subject no longer exists.`);
  }
  parts.push(
    table(
      ['Questions', 'Model', 'Decision', 'Language', 'Cases', 'Unassessed', 'Review rate', 'Accuracy'],
      report.results.map((result) => [
        result.identity.questions.slice(0, 8),
        result.identity.model,
        decisionLabel(result),
        languageLabel(result.identity.language),
        result.cases,
        result.unassessed,
        withInterval(result.reviewRate, result.reviewRateInterval),
        accuracyLabel(result),
      ]),
    ),
  );
  for (const result of report.results) parts.push(formatResult(result));
  if (report.temperatures !== null) parts.push(formatTemperatures(report.temperatures));
  return parts.join('\n\n');
}

/**
 * Temperatures refitted from resolutions, one per identity (kept apart), each as `--fit-temperature` prints one, with
 * how its truths were read and what was left out.
 */
export function formatResolutionTemperatures(judgment: string, found: ResolutionTemperatures): string {
  const skipped = Object.entries(found.skipped).map(([reason, count]) => `${plural(count, 'record')}: ${reason}`);
  const parts = [
    bold(`Temperature refitted from the resolutions of ${judgment} (no Engine call)`),
    `Truths: ${found.rule}`,
  ];
  if (skipped.length > 0) parts.push(`Left out: ${skipped.join('; ')}.`);
  if (found.fits.length === 0) {
    parts.push(
      'Nothing to fit: no resolved Review or audit of a connection that records logprob masses (openai) gave a ' +
        'Likelihood truth.',
    );
    return parts.join('\n\n');
  }
  for (const fit of found.fits) {
    const { identity } = fit;
    const version = identity.decisionVersion === null ? '' : ` v${identity.decisionVersion}`;
    parts.push(
      [
        bold(
          `${identity.connection} · ${identity.model} · ${identity.decision}${version} · questions ` +
            `${identity.questions.slice(0, 8)} — from ${plural(fit.resolutions, 'resolved Review')} and ` +
            `${plural(fit.audits, 'audit')}` +
            (fit.undetermined > 0 ? ` (${plural(fit.undetermined, 'answer')} without a readable truth left out)` : ''),
        ),
        formatTemperatures([fit]),
      ].join('\n'),
    );
  }
  if (found.fits.length > 1) {
    parts.push('Each identity is fitted apart, never mixed: apply the value of the identity the connection runs now.');
  }
  return parts.join('\n\n');
}

/** The fitted temperatures, with ECE and negative log-likelihood before and after, and where to set them. */
function formatTemperatures(temperatures: NonNullable<CalibrationReport['temperatures']>): string {
  if (temperatures.length === 0) {
    return (
      'Temperature scaling: nothing to fit. It needs Likelihood truths in the cases and a driver that records ' +
      'logprob masses (openai).'
    );
  }
  const rows = temperatures.map((fit) => [
    fit.connection,
    fit.model,
    fit.cases,
    fit.temperature.toFixed(3),
    `${decimal(fit.eceBefore)} → ${decimal(fit.eceAfter)}`,
    `${decimal(fit.nllBefore)} → ${decimal(fit.nllAfter)}`,
  ]);
  const settings = temperatures.map((fit) => {
    const value = Number(fit.temperature.toFixed(3));
    const variable = TEMPERATURE_VARIABLE[fit.connection];
    return `  engines.${fit.connection}.temperatureScaling: ${value}${variable ? `   (or the variable ${variable}=${value})` : ''}`;
  });
  const { lowest, highest } = TEMPERATURE_RANGE;
  const bounded = temperatures
    .filter((fit) => fit.temperature <= lowest * 1.01 || fit.temperature >= highest * 0.99)
    .map(
      (fit) =>
        `Warning: the temperature of ${fit.connection} reached the edge of the range searched (${lowest}–${highest}): ` +
        'its cases are separated perfectly (or too few), so the fit would sharpen or flatten without end. Label ' +
        'more cases, including hard ones, before applying it.',
    );
  const cautions = temperatures.map(temperatureCaution).filter((caution): caution is string => caution !== null);
  return [
    bold('Temperature scaling (fitted to the Likelihood truths)'),
    table(['Connection', 'Model', 'Answers', 'Temperature', 'ECE before → after', 'NLL before → after'], rows),
    ...cautions.map((caution) => `Warning: ${caution}`),
    `Apply it in the module options:\n${settings.join('\n')}`,
    ...bounded,
  ].join('\n');
}

/**
 * Below this many labelled answers a fitted temperature is unreliable: the fit is judged by a ten-bin calibration
 * error, which needs about ten answers per bin, and on fewer the fitted value moves a lot from one sample to the next.
 */
export const MIN_TEMPERATURE_ANSWERS = 100;

/** The environment variable that sets a connection's temperature, for the connections configured from it. */
const TEMPERATURE_VARIABLE: Readonly<Record<string, string>> = { openai: 'JUDGMENT_OPENAI_TEMPERATURE_SCALING' };

/** The small-sample caution of a fitted temperature, in words (null when it rests on enough answers). */
export function temperatureCaution(fit: { connection: string; cases: number }): string | null {
  if (fit.cases >= MIN_TEMPERATURE_ANSWERS) return null;
  return (
    `the temperature of ${fit.connection} rests on n = ${fit.cases} answers: unreliable below ` +
    `${MIN_TEMPERATURE_ANSWERS}. Label more cases before applying it.`
  );
}

function formatResult(result: CalibrationResult): string {
  const { identity } = result;
  const parts = [
    bold(
      `${decisionLabel(result)} · ${identity.model} · ${languageLabel(identity.language)} · questions ` +
        identity.questions.slice(0, 8),
    ),
    table(
      ['Question', 'Band', 'Cases', 'Expected', 'Accuracy', 'Review rate'],
      result.bands.map((band) => [
        band.question,
        `${band.from.toFixed(1)}–${band.to.toFixed(1)}`,
        band.cases,
        Object.entries(band.expected)
          .map(([outcome, count]) => `${outcome} ${count}`)
          .join(', '),
        percent(band.accuracy),
        percent(band.reviewRate),
      ]),
    ),
  ];
  if (result.scores.length > 0) {
    parts.push(
      table(
        ['Likelihood', 'Cases with truth', 'Brier score', 'Calibration error (ECE)'],
        result.scores.map((score) => [
          score.question,
          score.cases,
          decimal(score.brier),
          decimal(score.expectedCalibrationError),
        ]),
      ),
    );
    for (const score of result.scores) {
      parts.push(
        `Reliability of ${score.question}:\n` +
          table(
            ['Predicted', 'Cases', 'Mean predicted', 'Observed', '95% interval'],
            score.reliability
              .filter((bin) => bin.count > 0)
              .map((bin) => [
                `${bin.from.toFixed(1)}–${bin.to.toFixed(1)}`,
                bin.count,
                percent(bin.meanPredicted),
                percent(bin.observed),
                interval(bin.interval),
              ]),
          ),
      );
    }
  }
  parts.push(...result.warnings.map((warning) => `Warning: ${warning}`));
  return parts.join('\n');
}

function decisionLabel(result: CalibrationResult): string {
  const { decision, decisionVersion } = result.identity;
  return decisionVersion === null ? decision : `${decision} v${decisionVersion}`;
}

function accuracyLabel(result: CalibrationResult): string {
  const counts = result.automatic > 0 ? ` (${result.correct}/${result.automatic})` : '';
  return `${withInterval(result.accuracy, result.accuracyInterval)}${counts}`;
}

function withInterval(value: number | null, range: Interval | null): string {
  return range === null ? percent(value) : `${percent(value)} [${interval(range)}]`;
}

function interval(range: Interval | null): string {
  return range === null ? '—' : `${percent(range.low)}–${percent(range.high)}`;
}

function decimal(value: number | null): string {
  return value === null ? '—' : value.toFixed(3);
}
