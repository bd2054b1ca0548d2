import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Where a community post stands. */
export enum PostStatus {
  Pending = 'pending',
  Held = 'held',
  Published = 'published',
  Removed = 'removed',
}

/** A community post awaiting moderation: the Subject of PostModeration. */
@Entity({ name: 'posts' })
export class Post {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  author!: string;

  /** What the author wrote: untrusted. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'varchar', length: 16, default: PostStatus.Pending })
  status!: PostStatus;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;
}
