import { Logger } from '@nestjs/common';
import { resolveJudgmentOptions } from '../judgment.options';
import { JudgmentLogger } from '../logging/judgment.logger';
import {
  AssessmentCache,
  type CacheStore,
  type CachedAssessment,
  MEMORY_CACHE_ENTRIES,
  MemoryStore,
} from './assessment.cache';

const entry: CachedAssessment = {
  answers: { abusive: 0.4 },
  engine: 'jev',
  model: 'jev-1.13.0',
  requestId: null,
  recordId: 1,
};

/** An app cache store (CACHE_MANAGER) whose backend is down. */
const brokenStore = {
  get: () => Promise.reject(new Error('redis down')),
  set: () => Promise.reject(new Error('redis down')),
};

function cacheWith(store: CacheStore | undefined) {
  return new AssessmentCache(store ? () => store : null, new JudgmentLogger(resolveJudgmentOptions({})));
}

describe('AssessmentCache', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('a failing store reads as a miss and is logged, never thrown', async () => {
    await expect(cacheWith(brokenStore).get('key')).resolves.toBeNull();
    // Nest's default console logger: one line of key=values.
    expect(warn).toHaveBeenCalledWith(
      'Judgment cache unavailable. operation=get exception.type=Error exception.message="redis down"',
    );
  });

  it('a failing store write is logged, never thrown: the Assessment was already paid for and recorded', async () => {
    await expect(cacheWith(brokenStore).put('key', entry, 60)).resolves.toBeUndefined();
    // Nest's default console logger: one line of key=values.
    expect(warn).toHaveBeenCalledWith(
      'Judgment cache unavailable. operation=set exception.type=Error exception.message="redis down"',
    );
  });

  it('without CacheModule the in-process store keeps an entry until its TTL, and 0 keeps nothing', async () => {
    const cache = cacheWith(undefined);
    await cache.put('kept', entry, 60);
    await cache.put('not-kept', entry, 0);
    await expect(cache.get('kept')).resolves.toEqual(entry);
    await expect(cache.get('not-kept')).resolves.toBeNull();
  });
});

describe('the in-process store is bounded', () => {
  it('keeps at most its capacity, dropping the least recently used entry first', async () => {
    const store = new MemoryStore(3);
    for (const key of ['a', 'b', 'c']) await store.set(key, key, 60_000);
    await store.get('a');
    await store.set('d', 'd', 60_000);
    expect(store.size).toBe(3);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe('a');
    expect(await store.get('d')).toBe('d');
  });

  it('refuses an entry once its TTL has passed, and lets a later write replace it', async () => {
    const store = new MemoryStore(3);
    await store.set('short', 'old', 20);
    await store.set('long', 'kept', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await store.get('short')).toBeUndefined();
    expect(await store.get('long')).toBe('kept');
    await store.set('short', 'new', 60_000);
    expect(await store.get('short')).toBe('new');
  });

  it('keeps a null or false value as a hit, not a miss', async () => {
    const store = new MemoryStore(3);
    await store.set('nothing', null, 60_000);
    await store.set('no', false, 60_000);
    expect(await store.get('nothing')).toBeNull();
    expect(await store.get('no')).toBe(false);
  });

  it('holds 10,000 entries by default, however many are written', async () => {
    const store = new MemoryStore();
    for (let index = 0; index < MEMORY_CACHE_ENTRIES + 500; index++) await store.set(`k${index}`, index, 60_000);
    expect(store.size).toBe(MEMORY_CACHE_ENTRIES);
  });
});
