import { Injectable } from '@nestjs/common';
import { InvalidReviewer, ResolutionForbidden } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { type EntityReference, entityReference } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import type { Reviewer } from '../persistence/reviewer';
import { TEXT_COLUMN_LENGTH, unstorableText } from '../persistence/storable-text';
import { ResolutionPolicyHost } from './resolution-policy';

/** Who a reviewer is (the reference recorded) and what the app's ResolutionPolicy lets them do with a record. */
@Injectable()
export class ReviewAccess {
  constructor(
    private readonly rows: RecordWriter,
    private readonly policies: ResolutionPolicyHost,
  ) {}

  /**
   * Asks the app's ResolutionPolicy whether `reviewer` may work `record` (resolve it, or claim it to resolve it).
   * None configured refuses everyone; both refusals are ResolutionForbidden.
   */
  async authorize(record: AssessmentRecord, reviewer: Reviewer, action: string): Promise<void> {
    const policy = this.policies.policy;
    if (!policy) {
      throw new ResolutionForbidden(
        `Nobody may ${action} record #${record.id}: no ResolutionPolicy is configured. Implement ResolutionPolicy ` +
          'and pass it as JudgmentModule.forRoot({ resolutionPolicy: YourPolicy }).',
      );
    }
    if ((await policy.canResolve(reviewer, record)) !== true) {
      throw new ResolutionForbidden(
        `The ResolutionPolicy refused ${describeReviewer(this.reference(reviewer))} resolving record #${record.id}.`,
      );
    }
  }

  /** Whether the policy lets `reviewer` resolve over another reviewer's live claim (its optional canOverrideClaim). */
  async mayOverrideClaim(record: AssessmentRecord, reviewer: Reviewer): Promise<boolean> {
    const policy = this.policies.policy;
    return typeof policy?.canOverrideClaim === 'function' && (await policy.canOverrideClaim(reviewer, record)) === true;
  }

  /** Whether the policy lets `reviewer` settle a disagreement of N-of-M votes (its optional canAdjudicate). */
  async mayAdjudicate(record: AssessmentRecord, reviewer: Reviewer): Promise<boolean> {
    const policy = this.policies.policy;
    return typeof policy?.canAdjudicate === 'function' && (await policy.canAdjudicate(reviewer, record)) === true;
  }

  /**
   * The reference recorded for a reviewer; InvalidReviewer when it is neither `{ type, id }` nor a saved entity, or
   * when its type or id does not fit the reviewer columns.
   */
  reviewerReference(reviewer: Reviewer): EntityReference {
    const reference = this.reference(reviewer);
    if (!reference) {
      throw new InvalidReviewer(
        'A reviewer is { type, id } or a saved TypeORM entity (its entity name and primary key are recorded).',
      );
    }
    for (const part of ['type', 'id'] as const) {
      const problem = unstorableText(reference[part]);
      if (problem) {
        throw new InvalidReviewer(
          `The reviewer's ${part} ${problem}: a reviewer's type and id are stored in columns of ` +
            `${TEXT_COLUMN_LENGTH} characters of text. Identify reviewers by a short key (a user's primary key).`,
        );
      }
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

function describeReviewer(reference: EntityReference | null): string {
  return reference ? `reviewer ${reference.type} #${reference.id}` : 'the reviewer';
}
