import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Where a refund request stands; only a pending (or in-review) request can still be approved or rejected. */
export enum RefundStatus {
  Pending = 'pending',
  InReview = 'in_review',
  Approved = 'approved',
  Rejected = 'rejected',
}

/** A customer's refund request: the Subject of RefundAbuse. */
@Entity({ name: 'refunds' })
export class Refund {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  item!: string;

  @Column({ name: 'amount_eur', type: 'real' })
  amountEur!: number;

  /** What the customer wrote: end-user text, shown to the Engine as untrusted. */
  @Column({ type: 'text' })
  explanation!: string;

  /** A fact the app already knows: it goes to the Decision, never to the Engine. */
  @Column({ name: 'refunds_this_year', type: 'integer', default: 0 })
  refundsThisYear!: number;

  @Column({ type: 'varchar', length: 16, default: 'en' })
  locale!: string;

  @Column({ type: 'varchar', length: 16, default: RefundStatus.Pending })
  status!: RefundStatus;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;
}
