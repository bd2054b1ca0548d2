import type { DataSource, EntityMetadata } from 'typeorm';

/** A saved TypeORM entity as a record stores it: its entity name and primary key (as a string). */
export interface EntityReference {
  readonly type: string;
  readonly id: string;
}

/** Whether a value is an instance of an entity the DataSource knows. */
export function isEntity(dataSource: DataSource | null, value: unknown): value is object {
  return (
    value !== null &&
    typeof value === 'object' &&
    dataSource !== null &&
    dataSource.hasMetadata((value as object).constructor)
  );
}

/** The reference of a saved entity, or null when it is not an entity or has no primary key yet (unsaved). */
export function entityReference(dataSource: DataSource | null, value: unknown): EntityReference | null {
  if (!isEntity(dataSource, value)) return null;
  const metadata = dataSource!.getMetadata(value.constructor);
  const ids = metadata.primaryColumns.map((column) => column.getEntityValue(value));
  if (ids.length === 0 || ids.some((id) => id === undefined || id === null)) return null;
  return { type: metadata.name, id: ids.length === 1 ? String(ids[0]) : JSON.stringify(ids) };
}

/** Loads an entity by its primary key as a record stores it (a composite key as a JSON list); null when gone. */
export function findByKey(
  dataSource: DataSource,
  metadata: EntityMetadata,
  key: string | number,
): Promise<object | null> {
  const columns = metadata.primaryColumns;
  const values = columns.length === 1 ? [key] : (JSON.parse(String(key)) as unknown[]);
  const where = Object.assign({}, ...columns.map((column, index) => column.createValueMap(values[index])));
  return dataSource.getRepository(metadata.target).findOneBy(where);
}
