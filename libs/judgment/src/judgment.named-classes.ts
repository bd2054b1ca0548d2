import type { FactoryProvider, InjectionToken, OptionalFactoryDependency, Type } from '@nestjs/common';
import {
  OPTIONAL_DEPS_METADATA,
  OPTIONAL_PROPERTY_DEPS_METADATA,
  PARAMTYPES_METADATA,
  PROPERTY_DEPS_METADATA,
  SELF_DECLARED_DEPS_METADATA,
} from '@nestjs/common/constants';
import { InvalidConfiguration } from './errors';

/**
 * A class the module options name (an Engine class given as a connection's `driver`, the `resolutionPolicy`), with
 * the dependencies DI found for it when the app started: `build()` makes the instance. Building is left to the caller
 * so that nothing is constructed that is not used (the app's own provider of the ResolutionPolicy wins over a built one).
 */
export class NamedClass<T> {
  constructor(
    readonly cls: Type<T>,
    /** The option that names the class, for errors (`driver`, `resolutionPolicy`). */
    private readonly option: string,
    private readonly parameters: readonly Dependency[],
    private readonly properties: readonly PropertyDependency[],
    /** What DI found for the constructor parameters, then for the properties: undefined where nothing provides it. */
    private readonly found: readonly unknown[],
  ) {}

  /**
   * A new instance, its dependencies injected as Nest would. A dependency nobody provides (and the class does not
   * mark `@Optional()`), or a constructor that throws, is InvalidConfiguration naming the option and the class.
   */
  build(): T {
    const missing = [...this.parameters, ...this.properties].find(
      (dependency, index) => !dependency.optional && this.found[index] === undefined,
    );
    if (missing) {
      throw this.unbuildable(
        `${missing.where} (${describeToken(missing.token)}) is provided by no module it can see. Provide its ` +
          'dependencies (a global module, or the imports of forRootAsync), or give a class that can be built.',
      );
    }
    let instance: T;
    try {
      instance = new this.cls(...this.found.slice(0, this.parameters.length));
    } catch (error) {
      throw this.unbuildable((error as Error)?.message ?? String(error), error);
    }
    this.properties.forEach(({ key }, index) => {
      const value = this.found[this.parameters.length + index];
      if (value !== undefined) (instance as Record<string | symbol, unknown>)[key] = value;
    });
    return instance;
  }

  private unbuildable(reason: string, cause?: unknown): InvalidConfiguration {
    return new InvalidConfiguration(
      `The ${this.option} ${this.cls.name} could not be constructed: ${reason}`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/**
 * The provider of a NamedClass under `token`: a factory that asks DI for each of the class's dependencies as optional
 * (what is missing is reported by `build()`, which only runs when the instance is needed). Its dependencies are read
 * as Nest's injector reads them: constructor parameter types, `@Inject()` tokens and `@Optional()` flags, and
 * `@Inject()` properties.
 */
export function namedClassProvider(token: symbol, cls: Type<unknown>, option: string): FactoryProvider {
  const parameters = constructorDependencies(cls);
  const properties = propertyDependencies(cls);
  const asked = [...parameters, ...properties].filter((dependency) => dependency.token !== undefined);
  return {
    provide: token,
    useFactory: (...given: unknown[]) => {
      const found = [...parameters, ...properties].map((dependency) =>
        dependency.token === undefined ? undefined : given[asked.indexOf(dependency)],
      );
      return new NamedClass(cls, option, parameters, properties, found);
    },
    inject: asked.map((dependency): OptionalFactoryDependency => ({ token: dependency.token!, optional: true })),
  };
}

/**
 * A class only forRootAsync()'s factory names (DI could not be told of it when the module was declared): one that
 * needs nothing from DI — its constructor takes no argument and it injects no property — is built as DI would build
 * it; null when it has dependencies (then it must be given beside useFactory).
 */
export function dependencyFree<T>(cls: Type<T>, option: string): NamedClass<T> | null {
  if (cls.length > 0 || constructorDependencies(cls).length > 0 || propertyDependencies(cls).length > 0) return null;
  return new NamedClass(cls, option, [], [], []);
}

interface Dependency {
  /** undefined when the type cannot be read (a circular import): then it is missing unless optional. */
  readonly token: InjectionToken | undefined;
  readonly optional: boolean;
  /** Where the class asks for it, for errors: `argument 0 of its constructor`, `its property directory`. */
  readonly where: string;
}

interface PropertyDependency extends Dependency {
  readonly key: string | symbol;
}

/** The constructor's dependencies: the parameter types, each replaced by its `@Inject()` token, and `@Optional()`. */
function constructorDependencies(cls: Type<unknown>): Dependency[] {
  const tokens: unknown[] = [...((Reflect.getMetadata(PARAMTYPES_METADATA, cls) as unknown[] | undefined) ?? [])];
  const declared = (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, cls) ?? []) as Array<{
    index: number;
    param: unknown;
  }>;
  for (const { index, param } of declared) tokens[index] = param;
  const optional = new Set<number>(Reflect.getOwnMetadata(OPTIONAL_DEPS_METADATA, constructorOwner(cls)) ?? []);
  return tokens.map((token, index) => ({
    token: tokenOf(token),
    optional: optional.has(index),
    where: `argument ${index} of its constructor`,
  }));
}

/** The properties given `@Inject()`, with their tokens and `@Optional()`. */
function propertyDependencies(cls: Type<unknown>): PropertyDependency[] {
  const properties = (Reflect.getMetadata(PROPERTY_DEPS_METADATA, cls) ?? []) as Array<{
    key: string | symbol;
    type: unknown;
  }>;
  const optional = new Set<string | symbol>(Reflect.getMetadata(OPTIONAL_PROPERTY_DEPS_METADATA, cls) ?? []);
  return properties.map(({ key, type }) => ({
    key,
    token: tokenOf(type),
    optional: optional.has(key),
    where: `its property ${String(key)}`,
  }));
}

/**
 * The class in the prototype chain that declares the constructor `cls` is built with (as Nest's injector finds it):
 * a subclass without a constructor of its own takes its parent's `@Optional()` flags, one with its own does not.
 */
function constructorOwner(cls: Type<unknown>): Function {
  for (let current: unknown = cls; typeof current === 'function' && current !== Function.prototype;) {
    const keys = [PARAMTYPES_METADATA, OPTIONAL_DEPS_METADATA, SELF_DECLARED_DEPS_METADATA];
    if (keys.some((key) => Reflect.hasOwnMetadata(key, current as Function))) return current as Function;
    current = Object.getPrototypeOf(current);
  }
  return cls;
}

/** An injection token as DI takes it (`forwardRef(() => X)` read now, when X is defined). */
function tokenOf(token: unknown): InjectionToken | undefined {
  if (token === undefined || token === null) return undefined;
  const forward = (token as { forwardRef?: () => unknown }).forwardRef;
  return (typeof forward === 'function' ? forward() : token) as InjectionToken | undefined;
}

function describeToken(token: InjectionToken | undefined): string {
  if (token === undefined) return 'a type that could not be read: a circular import?';
  return typeof token === 'function' ? token.name : String(token);
}
