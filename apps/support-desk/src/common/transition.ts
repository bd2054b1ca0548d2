import type { ObjectLiteral, Repository } from 'typeorm';

/**
 * Moves a row to the status `to` only while its status is still one of `from`, in one conditional UPDATE. It is
 * what makes the demo's Actions idempotent: a repeated event (a queue retry, a second assessment) changes nothing.
 * Resolves to true when this call made the change.
 */
export async function transition<T extends ObjectLiteral & { id: number; status: string }>(
  repository: Repository<T>,
  id: number,
  from: readonly T['status'][],
  to: T['status'],
  also: Partial<T> = {},
): Promise<boolean> {
  const result = await repository
    .createQueryBuilder()
    .update()
    .set({ ...also, status: to } as never)
    .where('id = :id', { id })
    .andWhere('status IN (:...from)', { from })
    .execute();
  return result.affected === 1;
}
