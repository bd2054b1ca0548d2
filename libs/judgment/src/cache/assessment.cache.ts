import { Inject, Injectable, type OnModuleInit, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { EncodedAnswers } from '../assessment/assessment';
import { fingerprint } from '../fingerprint/fingerprint';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';

/** What a cache entry holds: never the Evidence, never provenance details. */
export interface CachedAssessment {
  readonly answers: EncodedAnswers;
  readonly engine: string;
  readonly model: string;
  readonly requestId: string | null;
  /** The model of each Question, when the Engine reported one per Question (absent in entries from before). */
  readonly questionModels?: Readonly<Record<string, string>>;
  /** The record the answers were first written to; null when persistence was off. */
  readonly recordId: number | null;
}

/** Everything that makes two Assessments interchangeable. Change any part and the cache misses. */
export interface CacheKeyParts {
  readonly judgment: string;
  readonly questionsFingerprint: string;
  readonly evidenceFingerprint: string;
  readonly untrustedPaths: readonly string[];
  readonly engineClass: string;
  readonly connection: string;
  readonly model: string;
}

/** What the cache needs of a store: CacheModule's `CACHE_MANAGER` (cache-manager's Cache) has both methods. */
export interface CacheStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs: number): Promise<unknown>;
}

/**
 * The token the module's wiring provides the app's CacheModule store under: a function giving the store, or null when
 * the app registers no CacheModule. A function, because the app's store is only known once every provider is built:
 * the cache asks for it when the app starts.
 */
export const APP_CACHE_STORE = Symbol('APP_CACHE_STORE');

/** Opt-in Assessment cache: the app's CacheModule store when it registers one, else an in-process store. */
@Injectable()
export class AssessmentCache implements OnModuleInit {
  private resolved?: CacheStore;

  constructor(
    @Optional() @Inject(APP_CACHE_STORE) private readonly appStore: (() => CacheStore | null) | null,
    private readonly logger: JudgmentLogger,
  ) {}

  /** Takes the app's store (or the in-process one) when the app starts. */
  onModuleInit(): void {
    this.store();
  }

  key(parts: CacheKeyParts): string {
    return (
      'judgment:assessment:' +
      fingerprint([
        parts.judgment,
        parts.questionsFingerprint,
        parts.evidenceFingerprint,
        [...parts.untrustedPaths],
        parts.engineClass,
        parts.connection,
        parts.model,
      ])
    );
  }

  /** The entry under `key`, or null. A store that fails counts as a miss (logged): the cache is only a saving. */
  async get(key: string): Promise<CachedAssessment | null> {
    try {
      const entry = await this.store().get(key);
      return isCachedAssessment(entry) ? entry : null;
    } catch (error) {
      this.logger.warn('Judgment cache unavailable.', { operation: 'get', exception: describeError(error) });
      return null;
    }
  }

  /** Keeps an entry for `ttlSeconds` (0 keeps nothing). A store that fails is logged, never thrown: the Assessment
   *  was already paid for and recorded. */
  async put(key: string, entry: CachedAssessment, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    try {
      await this.store().set(key, entry, ttlSeconds * 1000);
    } catch (error) {
      this.logger.warn('Judgment cache unavailable.', { operation: 'set', exception: describeError(error) });
    }
  }

  private store(): CacheStore {
    if (!this.resolved) {
      this.resolved = this.appStore?.() ?? new MemoryStore();
    }
    return this.resolved;
  }
}

function isCachedAssessment(entry: unknown): entry is CachedAssessment {
  const e = entry as CachedAssessment | null;
  return (
    e !== null &&
    typeof e === 'object' &&
    typeof e.answers === 'object' &&
    typeof e.engine === 'string' &&
    typeof e.model === 'string'
  );
}

/** Most entries the in-process store keeps (about 6 MB at ~600 B an entry); the least recently used go first. */
export const MEMORY_CACHE_ENTRIES = 10_000;

/**
 * A small in-process TTL store for apps without CacheModule, capped at `capacity` entries (least recently used out):
 * `lru-cache`, which also refuses an expired entry on read.
 */
export class MemoryStore implements CacheStore {
  /** Values are boxed: lru-cache holds no undefined or null value. */
  private readonly entries: LRUCache<string, { value: unknown }>;

  constructor(capacity: number = MEMORY_CACHE_ENTRIES) {
    // Expiry on the wall clock (Date.now, read on every check), as the records' timestamps: not performance.now().
    this.entries = new LRUCache({ max: capacity, perf: Date, ttlResolution: 0 });
  }

  /** How many entries are held. */
  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<unknown> {
    return this.entries.get(key)?.value;
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.entries.set(key, { value }, { ttl: ttlMs });
  }
}
