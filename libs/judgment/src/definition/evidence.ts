import { InvalidEvidence } from '../errors';
import { fingerprint } from '../fingerprint/fingerprint';
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
 * Checks and encodes a Judgment's Evidence before any Engine is asked. Refuses, naming the path: cycles, BigInt,
 * functions, symbols, non-finite numbers, lone UTF-16 surrogates, Map/Set, and undefined inside lists.
 * `undefined` object properties are omitted, as JSON does.
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
    if (object instanceof Map || object instanceof Set) {
      throw new InvalidEvidence(
        path,
        `is a ${object.constructor.name}, which JSON cannot carry: use an object or a list.`,
      );
    }
    const boxed = BOXED.exec(Object.prototype.toString.call(object));
    if (boxed && !Array.isArray(object)) {
      throw new InvalidEvidence(
        path,
        `is a boxed ${boxed[1]} (new ${boxed[1]}(...)), which JSON and the stored Evidence would read differently: ` +
          'pass the primitive value.',
      );
    }
    // toJSON() first (a Date, an entity), then the value it returns is read like any other: UntrustedText included.
    if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
      return visit((object as { toJSON(): unknown }).toJSON(), path, depth + 1);
    }
    if (ancestors.has(object)) throw new InvalidEvidence(path, 'refers back to itself (a cycle).');
    ancestors.add(object);
    try {
      if (Array.isArray(object)) {
        const stored: JsonValue[] = [];
        const shown: unknown[] = [];
        object.forEach((item, index) => {
          const itemPath = join(path, String(index));
          const encoded = visit(item, itemPath, depth + 1);
          if (encoded === undefined) throw new InvalidEvidence(itemPath, 'is undefined; use null for a missing entry.');
          stored.push(encoded[0]);
          shown.push(encoded[1]);
        });
        return [stored, shown];
      }
      const stored: { [key: string]: JsonValue } = {};
      const shown: { [key: string]: unknown } = {};
      for (const [key, item] of Object.entries(object)) {
        const keyPath = join(path, key);
        checkString(key, keyPath);
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

  const [json, shown] = visit(evidence, '', 0) as [{ [key: string]: JsonValue }, EvidenceMap];
  return Object.freeze({
    json,
    untrustedPaths: Object.freeze(untrustedPaths),
    fingerprint: fingerprint(json),
    shown,
  });
}

/** Object.prototype.toString tags of boxed primitives (checked by tag, so boxes from another realm are caught). */
const BOXED = /^\[object (Number|String|Boolean|BigInt|Symbol)\]$/;

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
