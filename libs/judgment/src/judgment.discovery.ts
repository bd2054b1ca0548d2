import type { InjectionToken } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { InvalidConfiguration } from './errors';

export { DiscoveryModule, DiscoveryService } from '@nestjs/core';

/**
 * The app's own instance of a provider registered under `token` in any of its modules, or null when it registers
 * none: what the core module hands its services once every provider is built (the app's CacheModule store, the app's
 * own provider of its ResolutionPolicy). Read with Nest's DiscoveryService when the app starts, as @nestjs/cqrs and
 * @nestjs/event-emitter find the app's handlers; nothing is looked up while the app serves. The first module's
 * wins when several register the token; a request-scoped or transient one is refused (it has no single instance).
 */
export function appProvider<T>(discovery: DiscoveryService, token: InjectionToken, what: string): T | null {
  const registered = discovery.getProviders().filter((wrapper) => wrapper.token === token);
  const single = registered.find((wrapper) => wrapper.isDependencyTreeStatic() && !wrapper.isTransient);
  if (single) return (single.instance as T) ?? null;
  if (registered.length > 0) {
    throw new InvalidConfiguration(
      `${what} is registered request-scoped or transient in ${registered[0].host?.name ?? 'a module'}: the module ` +
        'uses one instance for the whole app. Register it as a singleton (the default scope).',
    );
  }
  return null;
}
