import type { DataSource } from 'typeorm';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';

/** What the database lacks of one of the package's tables. */
export interface MissingSchema {
  /** The table (with its schema when the entity names one). */
  readonly table: string;
  /** The entity the table holds. */
  readonly entity: string;
  /** True when the whole table is missing; else the columns it lacks, in the entity's order. */
  readonly tableMissing: boolean;
  readonly columns: readonly string[];
}

/**
 * What the database lacks of the tables and columns of `entities` (read from the DataSource's entity metadata, so a
 * column added later is covered without a list to keep), in one catalog query on PostgreSQL and SQLite. Other
 * databases are read through TypeORM's schema loader.
 */
export async function missingSchema(dataSource: DataSource, entities: readonly Function[]): Promise<MissingSchema[]> {
  const tables = entities.map((entity) => dataSource.getMetadata(entity));
  const found = await existingColumns(dataSource, tables);
  const missing: MissingSchema[] = [];
  for (const metadata of tables) {
    const columns = found.get(metadata.tablePath);
    const expected = metadata.columns.map((column) => column.databaseName);
    const table = { table: metadata.tablePath, entity: metadata.name };
    if (columns === undefined) missing.push({ ...table, tableMissing: true, columns: expected });
    else {
      const lacking = expected.filter((column) => !columns.has(column));
      if (lacking.length > 0) missing.push({ ...table, tableMissing: false, columns: lacking });
    }
  }
  return missing;
}

/** The columns each table has, by table path; a missing table has no entry. */
async function existingColumns(
  dataSource: DataSource,
  tables: readonly EntityMetadata[],
): Promise<Map<string, Set<string>>> {
  const found = new Map<string, Set<string>>();
  const add = (table: string, column: string | null) => {
    const columns = found.get(table) ?? new Set<string>();
    if (column !== null) columns.add(column);
    found.set(table, columns);
  };
  const paths = tables.map((metadata) => metadata.tablePath);
  switch (dataSource.options.type) {
    case 'postgres': {
      // to_regclass resolves a name as the app's own statements do (search_path, or the entity's schema).
      const names = tables.map((metadata) =>
        [metadata.schema, metadata.tableName]
          .filter((part): part is string => Boolean(part))
          .map(quoteIdentifier)
          .join('.'),
      );
      const rows: { path: string; column: string }[] = await dataSource.query(
        `SELECT t.path, a.attname AS column
           FROM unnest($1::text[], $2::text[]) AS t(name, path)
           JOIN pg_catalog.pg_attribute a ON a.attrelid = to_regclass(t.name) AND a.attnum > 0 AND NOT a.attisdropped`,
        [names, paths],
      );
      for (const row of rows) add(row.path, row.column);
      return found;
    }
    case 'better-sqlite3':
    case 'sqljs': {
      const rows: { path: string; column: string }[] = await dataSource.query(
        paths.map(() => 'SELECT ? AS path, name AS "column" FROM pragma_table_info(?)').join(' UNION ALL '),
        paths.flatMap((path) => [path, path]),
      );
      for (const row of rows) add(row.path, row.column);
      return found;
    }
    default: {
      const runner = dataSource.createQueryRunner();
      try {
        for (const table of await runner.getTables(paths)) {
          const path = paths.find((candidate) => candidate === table.name || candidate.endsWith(`.${table.name}`));
          if (path === undefined) continue;
          add(path, null);
          for (const column of table.columns) add(path, column.name);
        }
      } finally {
        await runner.release();
      }
      return found;
    }
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
