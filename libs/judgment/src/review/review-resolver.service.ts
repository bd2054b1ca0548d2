import { Injectable } from '@nestjs/common';
import { decisionMetadata } from '../decision/decision.decorator';
import type { Outcome } from '../definition/outcome';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { InvalidResolution, ResolutionForbidden, ReviewClaimConflict } from '../errors';
import { IsNull, Not } from 'typeorm';
import {
  AgreementDropped,
  AuditResolved,
  ReviewAdjudicated,
  ReviewAdjudicationNeeded,
  ReviewAgreed,
  ReviewResolved,
  ReviewVoteCast,
} from '../events/judgment.events';
import { type AuditAgreement, auditAgreements } from '../lock/audit-agreement';
import { CalibrationGuard } from '../routing/calibration.guard';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { EntityReference } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import type { Reviewer } from '../persistence/reviewer';
import { judgmentInstruments } from '../telemetry/judgment.metrics';
import { inSpan } from '../telemetry/judgment.tracing';
import { ReviewAccess } from './review-access';
import { ReviewVotes } from './review-votes.service';

/** Resolves records in Review on a reviewer's behalf, as far as the app's ResolutionPolicy allows. */
@Injectable()
export class ReviewResolver {
  constructor(
    private readonly rows: RecordWriter,
    private readonly registry: JudgmentRegistry,
    private readonly events: JudgmentEventsPublisher,
    private readonly access: ReviewAccess,
    private readonly guard: CalibrationGuard,
    private readonly votes: ReviewVotes,
  ) {}

  /**
   * Resolves a record in Review with a reviewer's Outcome. The app's ResolutionPolicy is asked first (none configured
   * refuses everyone: ResolutionForbidden); then InvalidResolution when the record is already resolved, is not
   * awaiting Review, or the resolution is not an Outcome of its Decision or itself requires Review; then
   * ReviewClaimConflict when another reviewer holds a live claim on it (unless the policy's canOverrideClaim allows).
   * Check and write are one conditional UPDATE, so of concurrent reviewers exactly one wins. Resolves to the
   * refreshed record.
   */
  async resolve(record: AssessmentRecord, resolution: Outcome, reviewer: Reviewer): Promise<AssessmentRecord> {
    const attributes = { 'judgment.name': record.judgment, 'judgment.record_id': record.id };
    return inSpan('judgment.review.resolve', { attributes }, async (span) => {
      const resolved = await this.resolveRecord(record, resolution, reviewer);
      span.setAttribute('judgment.resolution', String(resolved.resolution));
      const { reviewRequestedAt, resolvedAt } = resolved;
      if (reviewRequestedAt && resolvedAt) {
        const seconds = (new Date(resolvedAt).getTime() - new Date(reviewRequestedAt).getTime()) / 1000;
        judgmentInstruments().resolutionDuration.record(Math.max(0, seconds), {
          'judgment.name': record.judgment,
          'judgment.resolution': String(resolved.resolution),
        });
      }
      return resolved;
    });
  }

  private async resolveRecord(
    record: AssessmentRecord,
    resolution: Outcome,
    reviewer: Reviewer,
  ): Promise<AssessmentRecord> {
    await this.access.authorize(record, reviewer, 'resolve');
    const resolver = this.access.reviewerReference(reviewer);
    const { outcomes, resolved, required } = this.checkResolution(record, resolution);
    if (required > 1) return this.vote(record, outcomes, resolved, reviewer, resolver, required);
    return this.write(record, outcomes, resolved, reviewer, resolver);
  }

  /** Writes the Resolution itself (one conditional UPDATE; over another's claim only when the policy allows). */
  private async write(
    record: AssessmentRecord,
    outcomes: readonly Outcome[],
    resolved: Outcome,
    reviewer: Reviewer,
    resolver: EntityReference,
  ): Promise<AssessmentRecord> {
    const columns = { resolution: String(resolved), resolverType: resolver.type, resolverId: resolver.id };
    let { written, record: fresh } = await this.rows.recordResolution(record.id, columns, resolver);
    if (!written && fresh && heldByOther(fresh, resolver) && (await this.access.mayOverrideClaim(fresh, reviewer))) {
      ({ written, record: fresh } = await this.rows.recordResolution(record.id, columns, null));
    }
    if (!fresh) throw new InvalidResolution(`Record #${record.id} no longer exists (was it pruned?).`);
    Object.assign(record, fresh);
    if (!written) {
      if (fresh.isResolved()) throw alreadyResolved(fresh);
      const claim = fresh.liveClaim();
      if (fresh.isAwaitingReview() && claim) {
        throw new ReviewClaimConflict(fresh.id, claim.holder, claim.expiresAt, 'resolved');
      }
      throw notAwaitingReview(fresh);
    }
    await this.events.emit(new ReviewResolved(record, automaticOf(outcomes, fresh), resolved, reviewer));
    return record;
  }

  /**
   * N-of-M review: casts the reviewer's vote (ReviewVoteCast); the last of the required votes resolves the record when
   * all agree (ReviewAgreed, then ReviewResolved) or leaves it for adjudication (ReviewAdjudicationNeeded). Once the
   * votes are in and disagree, a Resolution is an adjudication: only a reviewer the policy's canAdjudicate allows may
   * give it (ResolutionForbidden otherwise); it resolves the record (ReviewAdjudicated, then ReviewResolved).
   */
  private async vote(
    record: AssessmentRecord,
    outcomes: readonly Outcome[],
    resolved: Outcome,
    reviewer: Reviewer,
    resolver: EntityReference,
    required: number,
  ): Promise<AssessmentRecord> {
    const cast = await this.votes.of(record.id);
    if (cast.length >= required) {
      if (!(await this.access.mayAdjudicate(record, reviewer))) {
        throw new ResolutionForbidden(
          `Record #${record.id} awaits adjudication: its ${required} votes disagree ` +
            `(${cast.map((vote) => JSON.stringify(vote.outcome)).join(', ')}), and the ResolutionPolicy's ` +
            `canAdjudicate does not allow ${resolver.type} #${resolver.id} to settle it.`,
        );
      }
      await this.write(record, outcomes, resolved, reviewer, resolver);
      await this.events.emit(new ReviewAdjudicated(record, resolved, reviewer, cast));
      return record;
    }
    const { result, record: fresh } = await this.votes.cast(record.id, String(resolved), resolver, required);
    Object.assign(record, fresh);
    await this.events.emit(new ReviewVoteCast(record, resolved, reviewer, result.votes.length, required));
    if (result.kind === 'agreed') {
      await this.events.emit(new ReviewAgreed(record, resolved, result.votes));
      await this.events.emit(new ReviewResolved(record, automaticOf(outcomes, fresh), resolved, reviewer));
    } else if (result.kind === 'disagreed') {
      await this.events.emit(new ReviewAdjudicationNeeded(record, result.votes));
    }
    return record;
  }

  /**
   * Resolves an audit of an automatic Outcome with the auditor's Outcome (the automatic one when it was right), as
   * race-safe as a Review: the ResolutionPolicy is asked, then one conditional UPDATE lets exactly one auditor win.
   * The automatic Outcome is left as it stood. Announces AuditResolved, then AgreementDropped when the identity's
   * audited accuracy now lies wholly below the calibration lock's interval.
   */
  async resolveAudit(record: AssessmentRecord, auditOutcome: Outcome, reviewer: Reviewer): Promise<AssessmentRecord> {
    await this.access.authorize(record, reviewer, 'resolve');
    const resolver = this.access.reviewerReference(reviewer);
    if (!record.isAwaitingAudit()) {
      throw new InvalidResolution(
        record.auditedAt !== null
          ? `Record #${record.id} was already audited (${JSON.stringify(record.auditResolution)} by ` +
              `${record.auditResolverType} #${record.auditResolverId}); an audit is final.`
          : `Record #${record.id} was not sampled for an audit: list audits with awaitingAudit().`,
      );
    }
    const { outcomes, resolved } = this.checkOutcome(record, auditOutcome);
    const { written, record: fresh } = await this.rows.recordAudit(record.id, {
      auditResolution: String(resolved),
      auditResolverType: resolver.type,
      auditResolverId: resolver.id,
    });
    if (!fresh) throw new InvalidResolution(`Record #${record.id} no longer exists (was it pruned?).`);
    Object.assign(record, fresh);
    if (!written) {
      throw new InvalidResolution(
        `Record #${record.id} was already audited (${JSON.stringify(fresh.auditResolution)} by ` +
          `${fresh.auditResolverType} #${fresh.auditResolverId}); an audit is final.`,
      );
    }
    const automatic = outcomes.find((outcome) => String(outcome) === fresh.outcome) ?? (fresh.outcome as Outcome);
    const event = new AuditResolved(record, automatic, resolved, reviewer);
    judgmentInstruments().audits.add(1, {
      'judgment.name': record.judgment,
      'judgment.decision': record.decision ?? '',
      'judgment.audit.event': event.agreed ? 'agreed' : 'disagreed',
    });
    await this.events.emit(event);
    const agreement = await this.agreementOf(record);
    if (agreement?.dropped) await this.events.emit(new AgreementDropped(agreement, record));
    return record;
  }

  /** The audited accuracy of the record's identity beside the lock's. */
  private async agreementOf(record: AssessmentRecord): Promise<AuditAgreement | null> {
    const lock = this.guard.calibrationLock;
    if (!lock) return null;
    const audits = await this.rows.repository().find({
      where: {
        judgment: record.judgment,
        decision: record.decision ?? IsNull(),
        decisionVersion: record.decisionVersion ?? IsNull(),
        questionsFingerprint: record.questionsFingerprint,
        model: record.model ?? IsNull(),
        auditedAt: Not(IsNull()),
      },
    });
    return auditAgreements(audits, lock)[0] ?? null;
  }

  /** The in-memory checks, in order; resolves the resolution to the value of the Decision's enum. */
  private checkResolution(record: AssessmentRecord, resolution: Outcome) {
    if (record.isResolved()) throw alreadyResolved(record);
    if (!record.isAwaitingReview() || record.decision === null) throw notAwaitingReview(record);
    const checked = this.checkOutcome(record, resolution);
    return { ...checked, required: decisionMetadata(this.registry.decision(record.decision)).reviewers };
  }

  /** A reviewer's Outcome, checked against the record's Decision and resolved to its enum's value. */
  private checkOutcome(record: AssessmentRecord, resolution: Outcome) {
    if (record.decision === null) throw notAwaitingReview(record);
    if (!this.registry.hasDecision(record.decision)) {
      throw new InvalidResolution(
        `Record #${record.id} was decided by ${record.decision}, which is not registered, so its Outcomes are unknown: ` +
          `add ${record.decision} to JudgmentModule.forFeature([...]) to resolve it.`,
      );
    }
    const metadata = decisionMetadata(this.registry.decision(record.decision));
    const resolved = metadata.outcomes.find((outcome) => String(outcome) === String(resolution));
    if (resolved === undefined) {
      throw new InvalidResolution(
        `${JSON.stringify(resolution)} cannot resolve record #${record.id}: it is not an Outcome of ` +
          `${metadata.name} (${metadata.outcomes.map((outcome) => JSON.stringify(outcome)).join(', ')}).`,
      );
    }
    if (metadata.review.has(resolved)) {
      throw new InvalidResolution(
        `${JSON.stringify(resolved)} cannot resolve record #${record.id}: that Outcome itself requires Review. ` +
          'Resolve with an Outcome a person can settle on.',
      );
    }
    return { outcomes: metadata.outcomes, resolved };
  }
}

/** The automatic Outcome that sent the record to Review, as a value of the Decision's enum. */
function automaticOf(outcomes: readonly Outcome[], record: AssessmentRecord): Outcome {
  return outcomes.find((outcome) => String(outcome) === record.outcome) ?? (record.outcome as Outcome);
}

/** Whether someone other than `reviewer` holds a live claim on the record. */
function heldByOther(record: AssessmentRecord, reviewer: EntityReference): boolean {
  const claim = record.liveClaim();
  return claim !== null && (claim.holder.type !== reviewer.type || claim.holder.id !== reviewer.id);
}

export function alreadyResolved(record: AssessmentRecord): InvalidResolution {
  return new InvalidResolution(
    `Record #${record.id} is already resolved (${JSON.stringify(record.resolution)} by ${record.resolverType} ` +
      `#${record.resolverId}); a Resolution is final.`,
  );
}

export function notAwaitingReview(record: AssessmentRecord): InvalidResolution {
  return new InvalidResolution(
    `Record #${record.id} is not awaiting Review: only a record whose Outcome required Review can be resolved.`,
  );
}
