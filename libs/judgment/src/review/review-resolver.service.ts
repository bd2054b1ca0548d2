import { Injectable } from '@nestjs/common';
import { decisionMetadata } from '../decision/decision.decorator';
import type { Outcome } from '../definition/outcome';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { InvalidResolution, ResolutionForbidden } from '../errors';
import { ReviewResolved } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { type EntityReference, entityReference } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import type { Reviewer } from '../persistence/reviewer';
import { judgmentInstruments } from '../telemetry/judgment.metrics';
import { inSpan } from '../telemetry/judgment.tracing';
import { ResolutionPolicyHost } from './resolution-policy';

/** Resolves records in Review on a reviewer's behalf, as far as the app's ResolutionPolicy allows. */
@Injectable()
export class ReviewResolver {
  constructor(
    private readonly rows: RecordWriter,
    private readonly registry: JudgmentRegistry,
    private readonly events: JudgmentEventsPublisher,
    private readonly policies: ResolutionPolicyHost,
  ) {}

  /**
   * Resolves a record in Review with a reviewer's Outcome. The app's ResolutionPolicy is asked first (none configured
   * refuses everyone: ResolutionForbidden); then InvalidResolution when the record is already resolved, is not
   * awaiting Review, or the resolution is not an Outcome of its Decision or itself requires Review. Check and write
   * are one conditional UPDATE, so of concurrent reviewers exactly one wins. Resolves to the refreshed record.
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
    await this.authorize(record, reviewer);
    const resolver = this.reviewerReference(reviewer);
    const { outcomes, resolved } = this.checkResolution(record, resolution);
    const { written, record: fresh } = await this.rows.recordResolution(record.id, {
      resolution: String(resolved),
      resolverType: resolver.type,
      resolverId: resolver.id,
    });
    if (!fresh) throw new InvalidResolution(`Record #${record.id} no longer exists (was it pruned?).`);
    Object.assign(record, fresh);
    if (!written) throw fresh.isResolved() ? alreadyResolved(fresh) : notAwaitingReview(fresh);
    const automatic = outcomes.find((outcome) => String(outcome) === fresh.outcome) ?? (fresh.outcome as Outcome);
    await this.events.emit(new ReviewResolved(record, automatic, resolved, reviewer));
    return record;
  }

  private async authorize(record: AssessmentRecord, reviewer: Reviewer): Promise<void> {
    const policy = this.policies.policy;
    if (!policy) {
      throw new ResolutionForbidden(
        `Nobody may resolve record #${record.id}: no ResolutionPolicy is configured. Implement ResolutionPolicy ` +
          'and pass it as JudgmentModule.forRoot({ resolutionPolicy: YourPolicy }).',
      );
    }
    if ((await policy.canResolve(reviewer, record)) !== true) {
      throw new ResolutionForbidden(
        `The ResolutionPolicy refused ${describeReviewer(this.reference(reviewer))} resolving record #${record.id}.`,
      );
    }
  }

  /** The in-memory checks, in order; resolves the resolution to the value of the Decision's enum. */
  private checkResolution(record: AssessmentRecord, resolution: Outcome) {
    if (record.isResolved()) throw alreadyResolved(record);
    if (!record.isAwaitingReview() || record.decision === null) throw notAwaitingReview(record);
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

  private reviewerReference(reviewer: Reviewer): EntityReference {
    const reference = this.reference(reviewer);
    if (!reference) {
      throw new InvalidResolution(
        'A reviewer is { type, id } or a saved TypeORM entity (its entity name and primary key are recorded).',
      );
    }
    return reference;
  }

  private reference(reviewer: Reviewer): EntityReference | null {
    const entity = entityReference(this.rows.dataSource(), reviewer);
    if (entity) return entity;
    const { type, id } = (reviewer ?? {}) as { type?: unknown; id?: unknown };
    if (typeof type === 'string' && type !== '' && (typeof id === 'string' || typeof id === 'number')) {
      return { type, id: String(id) };
    }
    return null;
  }
}

function alreadyResolved(record: AssessmentRecord): InvalidResolution {
  return new InvalidResolution(
    `Record #${record.id} is already resolved (${JSON.stringify(record.resolution)} by ${record.resolverType} ` +
      `#${record.resolverId}); a Resolution is final.`,
  );
}

function notAwaitingReview(record: AssessmentRecord): InvalidResolution {
  return new InvalidResolution(
    `Record #${record.id} is not awaiting Review: only a record whose Outcome required Review can be resolved.`,
  );
}

function describeReviewer(reference: EntityReference | null): string {
  return reference ? `reviewer ${reference.type} #${reference.id}` : 'the reviewer';
}
