import type { DataSource } from 'typeorm';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import type { JudgmentRegistry } from '../registry/judgment.registry';
import { SubjectNotFound } from '../errors';
import { isEntity } from '../persistence/entity-reference';
import { UnqueueableJudgment } from '../errors';

/** A place inside a property's value: object keys and array indexes. */
export type PayloadPath = (string | number)[];

/** A TypeORM entity held directly in a property: it travels by reference and is fetched fresh when the job runs. */
export interface EntityProperty {
  /** The entity's name in the DataSource. */
  readonly entity: string;
  /** Its primary key columns and values. */
  readonly id: Record<string, unknown>;
}

/** Any other property: its JSON value, and where Dates and undefined values sat in it. */
export interface DataProperty {
  readonly value?: unknown;
  readonly dates?: PayloadPath[];
  readonly undefineds?: PayloadPath[];
}

/** A queued Judgment: its registered name and its own properties. The constructor is not part of it. */
export interface JudgmentPayload {
  readonly judgment: string;
  readonly properties: Record<string, EntityProperty | DataProperty>;
}

const PLAIN_DATA =
  'A queued Judgment carries plain data (strings, finite numbers, booleans, null, Dates, arrays and plain ' +
  'objects) and TypeORM entities held directly in a property (those go by reference)';

/**
 * Turns a Judgment into a job payload, refusing what cannot make the trip: an unregistered class, ES `#private`
 * members, functions, symbols, BigInts, cycles, class instances other than Dates and directly held entities.
 */
export function encodeJudgment(
  judgment: Judgment,
  registry: JudgmentRegistry,
  dataSource: DataSource | null,
): JudgmentPayload {
  const cls = judgment.constructor;
  const name = judgmentName(judgment);
  if (!registry.hasJudgment(name) || registry.judgment(name) !== cls) {
    throw new UnqueueableJudgment(
      `${cls.name} cannot be queued: no Judgment class is registered under its name "${name}", so a worker could ` +
        'not rebuild it. Add it to JudgmentModule.forFeature([...]).',
    );
  }
  refusePrivateMembers(cls, name);
  const properties: Record<string, EntityProperty | DataProperty> = {};
  for (const key of Reflect.ownKeys(judgment)) {
    const where = `property ${String(key)} of ${name}`;
    if (typeof key === 'symbol' || !Object.prototype.propertyIsEnumerable.call(judgment, key)) {
      throw new UnqueueableJudgment(
        `The ${where} cannot be queued: it is ${typeof key === 'symbol' ? 'keyed by a Symbol' : 'not enumerable'}. ` +
          `${PLAIN_DATA}.`,
      );
    }
    const value = (judgment as unknown as Record<string, unknown>)[key];
    properties[key] = isEntity(dataSource, value)
      ? entityProperty(dataSource!, value, where)
      : dataProperty(value, where);
  }
  return { judgment: name, properties };
}

/** Rebuilds a Judgment from its payload: the class from the registry, no constructor run, entities fetched fresh. */
export async function decodeJudgment(
  payload: JudgmentPayload,
  registry: JudgmentRegistry,
  dataSource: DataSource | null,
): Promise<Judgment> {
  const cls = registry.judgment(payload.judgment);
  const judgment = Object.create(cls.prototype) as Judgment;
  const entries = await Promise.all(
    Object.entries(payload.properties).map(async ([key, property]) => {
      const value =
        'entity' in property
          ? await fetchEntity(property, `property ${key} of ${payload.judgment}`, dataSource)
          : reviveData(property);
      return [key, value] as const;
    }),
  );
  for (const [key, value] of entries) {
    Object.defineProperty(judgment, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return judgment;
}

function entityProperty(dataSource: DataSource, entity: object, where: string): EntityProperty {
  const metadata = dataSource.getMetadata(entity.constructor);
  const id = metadata.getEntityIdMap(entity);
  if (!id || metadata.primaryColumns.some((column) => column.getEntityValue(entity) == null)) {
    throw new UnqueueableJudgment(
      `The ${where} holds a ${metadata.name} without a primary key: save the entity before dispatching, so the ` +
        'worker can fetch it.',
    );
  }
  return { entity: metadata.name, id: JSON.parse(JSON.stringify(id)) };
}

async function fetchEntity(property: EntityProperty, where: string, dataSource: DataSource | null): Promise<object> {
  if (!dataSource) {
    throw new SubjectNotFound(
      `The ${where} is the ${property.entity} ${JSON.stringify(property.id)}, but this worker has no TypeORM ` +
        'DataSource to fetch it from. Import TypeOrmModule.forRoot() in the worker app.',
    );
  }
  const entity = await dataSource.getRepository(property.entity).findOneBy(property.id as never);
  if (!entity) {
    throw new SubjectNotFound(
      `The ${where} is the ${property.entity} ${JSON.stringify(property.id)}, which no longer exists (deleted ` +
        'after the Judgment was dispatched), so the queued job cannot run.',
    );
  }
  return entity;
}

function dataProperty(value: unknown, where: string): DataProperty {
  if (value === undefined) return {};
  const dates: PayloadPath[] = [];
  const undefineds: PayloadPath[] = [];
  inspect(value, [], [], { dates, undefineds }, where);
  return {
    value: JSON.parse(JSON.stringify(value)),
    ...(dates.length ? { dates } : {}),
    ...(undefineds.length ? { undefineds } : {}),
  };
}

/** Checks a value is plain data, noting where Dates and undefined values sit (JSON drops or changes both). */
function inspect(
  value: unknown,
  path: PayloadPath,
  ancestors: object[],
  found: { dates: PayloadPath[]; undefineds: PayloadPath[] },
  where: string,
): void {
  const refuse = (what: string, hint = `${PLAIN_DATA}.`): never => {
    const at = path.length ? ` at ${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}` : '';
    throw new UnqueueableJudgment(`The ${where} cannot be queued: it holds ${what}${at}. ${hint}`);
  };
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(String(value), 'JSON has no such number; store null or a string instead.');
      return;
    case 'undefined':
      found.undefineds.push(path);
      return;
    case 'bigint':
      return refuse('a BigInt', 'Store it as a string (or a number when it fits) instead.');
    case 'symbol':
      return refuse('a Symbol');
    case 'function':
      return refuse('a function', 'Functions and closures cannot be queued: store the data they would compute.');
  }
  if (value === null) return;
  const object = value as object;
  if (ancestors.includes(object)) refuse('a circular reference', 'Queue a tree of plain data without cycles.');
  const prototype = Object.getPrototypeOf(object);
  if (prototype === Date.prototype) {
    if (Number.isNaN((object as Date).getTime())) refuse('an invalid Date');
    found.dates.push(path);
    return;
  }
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) {
    const kind = (prototype?.constructor as Function | undefined)?.name || 'class';
    refuse(
      `a ${kind} instance`,
      `${PLAIN_DATA}; other class instances would come back as plain objects. Hold an entity directly in a ` +
        'property, or store plain data.',
    );
  }
  if (Object.getOwnPropertySymbols(object).length) refuse('an object keyed by a Symbol');
  const inner = [...ancestors, object];
  if (Array.isArray(object)) {
    for (let index = 0; index < object.length; index++) inspect(object[index], [...path, index], inner, found, where);
  } else {
    for (const [key, item] of Object.entries(object)) inspect(item, [...path, key], inner, found, where);
  }
}

function reviveData(property: DataProperty): unknown {
  let value = property.value;
  const set = (path: PayloadPath, revive: (current: unknown) => unknown) => {
    if (path.length === 0) {
      value = revive(value);
      return;
    }
    let parent = value as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
    const last = path[path.length - 1];
    Object.defineProperty(parent, last, {
      value: revive(parent[last]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  for (const path of property.dates ?? []) set(path, (iso) => new Date(iso as string));
  for (const path of property.undefineds ?? []) set(path, () => undefined);
  return value;
}

/** Classes already found free of instance `#private` members (a class's source does not change). */
const withoutPrivateMembers = new WeakSet<Function>();

/**
 * ES `#private` members live outside the instance's properties and are only created by the constructor, which the
 * worker does not run. Static ones are harmless. Strings and comments are ignored, so `'#hashtag'` is fine.
 */
function refusePrivateMembers(cls: Function, name: string): void {
  if (withoutPrivateMembers.has(cls)) return;
  for (let current = cls; current && current !== Object && current !== Function.prototype;) {
    const source = Function.prototype.toString
      .call(current)
      .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '""');
    const member = /(?<![\w$.?])(?<!\bstatic\s+)(?<!\bstatic\s+(?:get|set|async)\s+)#([A-Za-z_$][\w$]*)/.exec(source);
    if (member) {
      throw new UnqueueableJudgment(
        `${name} (${cls.name}) cannot be queued: ${current.name} declares the ES private member #${member[1]}, ` +
          'which a queued copy cannot carry (the worker rebuilds the instance without running the constructor). ' +
          'Use a TypeScript `private` property instead.',
      );
    }
    current = Object.getPrototypeOf(current);
  }
  withoutPrivateMembers.add(cls);
}
