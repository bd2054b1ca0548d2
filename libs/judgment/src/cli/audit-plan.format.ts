import type { AuditPlan } from '../calibration/audit-plan';
import { bold, percent, table } from './cli.output';

/** The window of recorded traffic an audit rate is planned from, in days. */
export const TRAFFIC_DAYS = 28;

/** The identity a plan is for (Decision, version, Questions fingerprint, model). */
export interface PlannedIdentity {
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly questions: string;
  readonly model: string;
}

/** An audit plan as text: the target and the clean count, then per identity where it stands and the rate to audit. */
export function formatPlan(
  judgment: string,
  clean: AuditPlan,
  identities: ReadonlyArray<{ identity: PlannedIdentity; plan: AuditPlan }>,
  method: string,
): string {
  const head =
    `Audit plan for ${judgment}: show that the error rate of automatic Outcomes is ≤ ${percent(clean.maxError)} ` +
    `with ${percent(clean.confidence)} confidence. With none wrong this takes ${clean.cleanAuditsNeeded} audits.`;
  const parts = [bold(head)];
  if (identities.length === 0) {
    parts.push(
      `No audit and no automatic Outcome of ${judgment} recorded in the last ${TRAFFIC_DAYS} days: the estimate has ` +
        `no data, and no audit rate can be set from traffic. Start with ${clean.cleanAuditsNeeded} audits.`,
    );
  } else {
    parts.push(
      table(
        [
          'Decision',
          'Model',
          'Audits (wrong)',
          `Error now (${percent(clean.confidence)} bound)`,
          'Audits needed',
          'More',
          'Automatic/day',
          `Audit rate for ${clean.days} days`,
        ],
        identities.map(({ identity, plan }) => [
          identity.decisionVersion === null ? identity.decision : `${identity.decision} v${identity.decisionVersion}`,
          identity.model,
          `${plan.audits} (${plan.errors})`,
          plan.currentBound === null
            ? 'no data'
            : `${percent(plan.currentError)} (≤ ${percent(plan.currentBound)})${plan.met ? ' met' : ''}`,
          String(plan.auditsNeeded),
          String(plan.moreAudits),
          plan.automaticPerDay === null ? 'none recorded' : plan.automaticPerDay.toFixed(1),
          rate(plan),
        ]),
      ),
    );
  }
  parts.push(
    `Audits needed: in all, at the errors found so far, if every further audit is clean (each error found raises it). ` +
      `Automatic/day: the automatic Outcomes of the last ${TRAFFIC_DAYS} days (or since the first) per day.`,
    `Method: ${method}`,
    'Set the rate as @Decision({ …, audit: <rate> }) or calibration: { audit: { <Decision>: <rate> } }.',
  );
  return parts.join('\n\n');
}

function rate(plan: AuditPlan): string {
  if (plan.moreAudits === 0) return 'none more needed';
  if (plan.auditRate === null) return 'no traffic recorded';
  if (plan.auditRate > 1) {
    return `not reachable: ${plan.moreAudits} audits need more than every automatic Outcome of ${plan.days} days`;
  }
  return percent(Math.ceil(plan.auditRate * 1000 - 1e-9) / 1000); // rounded up: at least this much
}
