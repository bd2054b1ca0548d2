import { InvalidEvidence } from '../errors';
import { canonicalJson, sha256Hex } from '../fingerprint/fingerprint';
import { isShapeProbe } from './shape-probe';

/** End-user text inside the Evidence: the Engine is told to treat it as a claim, never as instructions. */
export class UntrustedText {
  constructor(readonly text: string) {
    Object.freeze(this);
  }
  toJSON(): string {
    return this.text;
  }
  toString(): string {
    return this.text;
  }
}

/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** The Evidence a Judgment shows: a plain JSON-able object that may hold UntrustedText at any depth. */
export type EvidenceMap = { [key: string]: unknown };

export const Evidence = {
  /** Marks end-user text (a complaint, an explanation, a post): it stays at its path and is fenced for the Engine. */
  untrusted(text: string): UntrustedText {
    // While `judgment check` reads the Evidence's shape, the text is not known yet: the path still holds a text.
    if (isShapeProbe(text)) return new UntrustedText('');
    if (typeof text !== 'string') {
      throw new InvalidEvidence(
        null,
        `given to Evidence.untrusted() must be the end-user text as a string; got ${typeof text}.`,
      );
    }
    return new UntrustedText(text);
  },
};

/** The Evidence checked and encoded once: what is stored, fingerprinted and cached. */
export interface PreparedEvidence {
  /** The Evidence as plain JSON (untrusted text as plain strings). */
  readonly json: { [key: string]: JsonValue };
  /** Dotted paths of the untrusted texts, depth first in declaration order (list indexes as numbers). */
  readonly untrustedPaths: readonly string[];
  /** SHA-256 of the canonical JSON of `json`: marking text untrusted does not change it. */
  readonly fingerprint: string;
  /** UTF-8 bytes of the canonical JSON of `json`: what the round's Evidence size limit is checked against. */
  readonly bytes: number;
  /**
   * The same value as the Engine is shown it: `json` with UntrustedText at the untrusted paths. Built in the same
   * pass as `json`, so what is sent is what is stored and fingerprinted.
   */
  readonly shown: EvidenceMap;
}

/** Deepest nesting of lists and objects accepted in Evidence. */
export const MAX_EVIDENCE_DEPTH = 100;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks and encodes a Judgment's Evidence before any Engine is asked. Refuses, naming the path, whatever JSON cannot
 * carry (cycles, BigInt, functions, symbols, non-finite numbers, lone UTF-16 surrogates) and whatever it would flatten
 * or change: a Promise, an Error, a Map or Set, other built-ins holding their data out of reach of JSON (RegExp,
 * typed arrays, weak collections), an invalid Date, a class instance whose getters JSON leaves out, `undefined` or a
 * hole in a list, a property keyed by a symbol, a getter or toJSON() that throws, and a root that is not a
 * `{ key: value }` object once read. `undefined` object properties are omitted, as JSON does; `toJSON()` is read, as
 * JSON does. The rule: a value is accepted when JSON sends what the app gave, and refused where it would not.
 */
export function prepareEvidence(evidence: unknown): PreparedEvidence {
  if (
    evidence === null ||
    typeof evidence !== 'object' ||
    Array.isArray(evidence) ||
    evidence instanceof UntrustedText
  ) {
    throw new InvalidEvidence('', 'must be a { key: value } object (evidence() returned something else).');
  }
  const untrustedPaths: string[] = [];
  const ancestors = new Set<object>();
  /** Prototypes already checked for getters (a list of one class's instances checks its class once). */
  const checkedPrototypes = new Set<object>();

  /** Returns the stored JSON value and the value shown to the Engine (UntrustedText kept), or undefined to omit. */
  const visit = (value: unknown, path: string, depth: number): [JsonValue, unknown] | undefined => {
    if (value instanceof UntrustedText) {
      untrustedPaths.push(path);
      checkString(value.text, path);
      return [value.text, value];
    }
    switch (typeof value) {
      case 'string':
        checkString(value, path);
        return [value, value];
      case 'boolean':
        return [value, value];
      case 'number':
        if (!Number.isFinite(value)) throw new InvalidEvidence(path, `is ${value}, which JSON cannot carry.`);
        return [value, value];
      case 'bigint':
        throw new InvalidEvidence(path, 'is a BigInt, which JSON cannot carry: pass it as a string or a number.');
      case 'function':
        throw new InvalidEvidence(path, 'is a function: show the value it computes instead.');
      case 'symbol':
        throw new InvalidEvidence(path, 'is a symbol, which JSON cannot carry.');
      case 'undefined':
        return undefined;
    }
    if (value === null) return [null, null];
    const object = value as object;
    if (depth > MAX_EVIDENCE_DEPTH) {
      throw new InvalidEvidence(
        shortPath(path),
        `is nested deeper than ${MAX_EVIDENCE_DEPTH} levels: flatten the Evidence, or show a summary of it.`,
      );
    }
    if (typeof (object as { then?: unknown }).then === 'function') {
      throw new InvalidEvidence(
        path,
        'is a Promise (or another thenable), which JSON would send as {}: await the value before constructing the ' +
          'Judgment (evidence() is synchronous).',
      );
    }
    const prototype: object | null = Object.getPrototypeOf(object);
    const plain = prototype === Object.prototype || prototype === Array.prototype || prototype === null;
    if (!plain) refuseFlattened(object, prototype, path);
    // toJSON() first (a Date, an entity), then the value it returns is read like any other: UntrustedText included.
    if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
      return visit(
        readOrRefuse(() => (object as { toJSON(): unknown }).toJSON(), path, 'its toJSON() threw'),
        path,
        depth + 1,
      );
    }
    if (!plain) refuseHiddenFields(object, prototype, path, checkedPrototypes);
    if (ancestors.has(object)) throw new InvalidEvidence(path, 'refers back to itself (a cycle).');
    ancestors.add(object);
    try {
      if (Array.isArray(object)) {
        const stored: JsonValue[] = [];
        const shown: unknown[] = [];
        // An index loop, not forEach: a hole must be seen (forEach skips it, JSON sends null there).
        for (let index = 0; index < object.length; index++) {
          const itemPath = join(path, String(index));
          const encoded = visit(object[index], itemPath, depth + 1);
          if (encoded === undefined) {
            throw new InvalidEvidence(
              itemPath,
              index in object
                ? 'is undefined; use null for a missing entry.'
                : 'is a hole in the list (JSON would send null there); use null for a missing entry.',
            );
          }
          stored.push(encoded[0]);
          shown.push(encoded[1]);
        }
        return [stored, shown];
      }
      const stored: { [key: string]: JsonValue } = {};
      const shown: { [key: string]: unknown } = {};
      refuseSymbolKeys(object, path);
      for (const key of Object.keys(object)) {
        const keyPath = join(path, key);
        checkString(key, keyPath);
        const item = readOrRefuse(() => (object as Record<string, unknown>)[key], keyPath, 'reading it threw');
        const encoded = visit(item, keyPath, depth + 1);
        if (encoded === undefined) continue;
        // defineProperty, not assignment: a `__proto__` key (JSON.parse makes own ones) stays an ordinary key.
        defineKey(stored, key, encoded[0]);
        defineKey(shown, key, encoded[1]);
      }
      return [stored, shown];
    } finally {
      ancestors.delete(object);
    }
  };

  const [json, shown] = visit(evidence, '', 0) ?? [undefined, undefined];
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    const became = json === undefined ? 'nothing' : Array.isArray(json) ? 'a list' : `a bare ${typeof json}`;
    throw new InvalidEvidence(
      '',
      `must be a { key: value } object, but JSON reads what evidence() returned (through its toJSON()) as ${became}: ` +
        'return an object, e.g. { placedAt: date } instead of date.',
    );
  }
  const canonical = canonicalJson(json);
  return Object.freeze({
    json,
    untrustedPaths: Object.freeze(untrustedPaths),
    fingerprint: sha256Hex(canonical),
    bytes: Buffer.byteLength(canonical, 'utf8'),
    shown: shown as EvidenceMap,
  });
}

/**
 * Refuses Evidence above a round's size limit (`maxEvidenceBytes`, or the Judgment's own), before any Engine is asked:
 * it would be sent, paid for and stored whole.
 */
export function checkEvidenceSize(judgment: string, evidence: PreparedEvidence, limit: number): void {
  if (evidence.bytes <= limit) return;
  throw new InvalidEvidence(
    null,
    `of ${judgment} is ${evidence.bytes.toLocaleString('en-US')} bytes as JSON, above the limit of ` +
      `${limit.toLocaleString('en-US')} bytes per round: show an excerpt or a summary instead, or raise the limit ` +
      '(module option maxEvidenceBytes, or @Judgment({ maxEvidenceBytes }) for this Judgment).',
  );
}

/**
 * Refuses a built-in whose data JSON cannot reach or would change (read by its tag, so one from another realm is
 * caught too): Map, Set, boxed primitives, an invalid Date, an Error, and the other built-ins JSON sends as `{}` or as
 * an object of indexes.
 */
function refuseFlattened(object: object, prototype: object | null, path: string): void {
  const tag = Object.prototype.toString.call(object).slice(8, -1);
  if (tag === 'Map' || tag === 'Set') {
    throw new InvalidEvidence(path, `is a ${tag}, which JSON cannot carry: use an object or a list.`);
  }
  if (BOXED.has(tag)) {
    throw new InvalidEvidence(
      path,
      `is a boxed ${tag} (new ${tag}(...)), which JSON and the stored Evidence would read differently: ` +
        'pass the primitive value.',
    );
  }
  if (tag === 'Date' && Number.isNaN(Date.prototype.getTime.call(object))) {
    throw new InvalidEvidence(path, 'is an invalid Date, which JSON would send as null: check how it was built.');
  }
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return;
  if (tag === 'Error' || object instanceof Error) {
    throw new InvalidEvidence(
      path,
      `is an ${className(prototype, 'Error')}, which JSON would send as {}: show its message (error.message), or ` +
        'the fields of it the Engine should read.',
    );
  }
  if (OPAQUE.has(tag) || ArrayBuffer.isView(object)) {
    throw new InvalidEvidence(
      path,
      `is a ${className(prototype, tag)}, which JSON would not send as it is: show its contents as a string, a ` +
        'number or a list.',
    );
  }
}

/** Refuses a class instance whose prototypes define getters: the app reads them, JSON leaves them out. */
function refuseHiddenFields(object: object, prototype: object | null, path: string, checked: Set<object>): void {
  // Up to, not including, the root of the chain (Object.prototype of any realm, with its __proto__ accessor).
  for (let level = prototype; level !== null && Object.getPrototypeOf(level) !== null;) {
    if (checked.has(level)) return;
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(level))) {
      if (descriptor.get === undefined || Object.prototype.hasOwnProperty.call(object, name)) continue;
      throw new InvalidEvidence(
        path,
        `is a ${className(prototype, 'class instance')} whose getter "${name}" JSON would leave out: show plain ` +
          'fields (e.g. { ' +
          `${name}: value.${name} }), or give the class a toJSON().`,
      );
    }
    checked.add(level);
    level = Object.getPrototypeOf(level) as object | null;
  }
}

/** Reads a value of the Evidence (a getter, a toJSON()); what it throws is InvalidEvidence naming the path. */
function readOrRefuse(read: () => unknown, path: string, what: string): unknown {
  try {
    return read();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidEvidence(
      path,
      `could not be read: ${what}: ${reason}. Read the value before constructing the Judgment and show what it is.`,
    );
  }
}

/** Refuses an object with enumerable properties keyed by symbols: the app sees them, JSON leaves them out. */
function refuseSymbolKeys(object: object, path: string): void {
  const symbol = Object.getOwnPropertySymbols(object).find((key) =>
    Object.prototype.propertyIsEnumerable.call(object, key),
  );
  if (symbol === undefined) return;
  throw new InvalidEvidence(
    path,
    `has a property keyed by ${String(symbol)}, which JSON would leave out: key it by a string, or leave it out of ` +
      'the Evidence.',
  );
}

/** The name of an object's class, for a message. */
function className(prototype: object | null, fallback: string): string {
  const name = (prototype as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : fallback;
}

/** Object.prototype.toString tags of boxed primitives (checked by tag, so boxes from another realm are caught). */
const BOXED = new Set(['Number', 'String', 'Boolean', 'BigInt', 'Symbol']);

/** Tags of built-ins whose data JSON cannot reach: it would send `{}` (typed arrays are caught by ArrayBuffer.isView). */
const OPAQUE = new Set(['RegExp', 'WeakMap', 'WeakSet', 'WeakRef', 'ArrayBuffer', 'SharedArrayBuffer']);

function defineKey(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A path short enough for a message: its first and last segments. */
function shortPath(path: string): string {
  return path.length > 120 ? `${path.slice(0, 40)}…${path.slice(-40)}` : path;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function checkString(text: string, path: string): void {
  if (LONE_SURROGATE.test(text)) {
    throw new InvalidEvidence(path, 'holds a lone UTF-16 surrogate (broken text), which cannot be encoded as UTF-8.');
  }
}
