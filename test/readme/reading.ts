import type { Assessment } from 'nestjs-judgment';
import { Harm, type PostModeration } from './post-moderation';
import { Team, type TicketRouting } from './ticket-routing';

export function describeTicket(assessment: Assessment<TicketRouting>) {
  const team = assessment.classification('team'); // typed by the Judgment: a Team, or 'none'
  const severity = assessment.rating('severity');
  return {
    team: team.label, // the top label; null when the escape option `none` won
    billing: team.is(Team.Billing),
    none: team.probabilityOf('none'),
    teamConfidence: team.confidence, // top probability minus the runner-up
    severity: severity.levelName, // the most probable level's description
    expectedSeverity: severity.expected, // Σ level × probability, 0..3 here
    serious: severity.between(1.5, 2.5), // [1.5, 2.5) on `expected`
    model: assessment.provenance.model, // the versioned model that answered
  };
}

export function describePost(assessment: Assessment<PostModeration>) {
  const harms = assessment.likelihoodSet('harms');
  return {
    spam: harms.of(Harm.Spam).probability,
    worst: harms.max().probability,
    flagged: harms.labelsAbove(0.4), // highest first
  };
}
