import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** "A record needs a reviewer": written once per record when it enters Review (the unique index makes it so). */
@Entity({ name: 'review_notifications' })
export class ReviewNotification {
  @PrimaryGeneratedColumn()
  id!: number;

  /** The `judgment_assessments` record awaiting Review. */
  @Index('review_notifications_record_unique', { unique: true })
  @Column({ name: 'record_id', type: 'integer' })
  recordId!: number;

  @Column({ type: 'varchar', length: 255 })
  judgment!: string;

  /** The automatic Outcome that sent the record to Review. */
  @Column({ type: 'varchar', length: 255 })
  outcome!: string;

  @Column({ name: 'subject_type', type: 'varchar', length: 255, nullable: true })
  subjectType!: string | null;

  @Column({ name: 'subject_id', type: 'varchar', length: 255, nullable: true })
  subjectId!: string | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;
}
