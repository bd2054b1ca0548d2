import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'refunds' })
export class Refund {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar' })
  item!: string;

  @Column({ type: 'real' })
  amount!: number;

  @Column({ type: 'text' })
  explanation!: string;

  @Column({ type: 'integer', default: 0 })
  refundsThisYear!: number;

  @Column({ type: 'varchar', default: 'en' })
  locale!: string;

  @Column({ type: 'varchar', default: 'pending' })
  status!: 'pending' | 'approved' | 'rejected' | 'in_review';
}
