import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Where a support ticket stands. */
export enum TicketStatus {
  New = 'new',
  Triage = 'triage',
  Routed = 'routed',
}

/** A support ticket: the Subject of TicketRouting. */
@Entity({ name: 'tickets' })
export class Ticket {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  subject!: string;

  /** What the customer wrote: untrusted. */
  @Column({ type: 'text' })
  body!: string;

  /** The team the ticket was routed to, once routed. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  department!: string | null;

  @Column({ type: 'varchar', length: 16, default: TicketStatus.New })
  status!: TicketStatus;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;
}
