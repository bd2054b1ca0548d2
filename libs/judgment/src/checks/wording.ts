/**
 * The word lists `judgment check` reads question texts with: small and per language on purpose (no model is asked).
 * A question is checked against every list, as its language is only known per Subject at run time.
 */
export interface Wording {
  /** Words that phrase a statement in the negative. */
  readonly negations: readonly string[];
  /** A trailing "or not" that only restates a yes/no question (stripped before looking for negations). */
  readonly orNot: RegExp;
  /** Phrases that ask the Engine to count, sum or compute. */
  readonly computing: readonly string[];
}

/** The word lists by language (ISO 639-1). */
export const WORDING: Readonly<Record<string, Wording>> = {
  en: {
    negations: ['not', 'no', 'never', 'none', 'nothing', 'nobody', 'neither', 'nor', 'without', 'cannot', 'lacks'],
    orNot: /\bor not\s*\??\s*$/u,
    computing: [
      'how many',
      'count the',
      'number of',
      'sum of',
      'sum up',
      'add up',
      'in total',
      'total of',
      'calculate',
      'compute',
      'average',
      'percentage of',
    ],
  },
  de: {
    negations: ['nicht', 'kein', 'keine', 'keinen', 'keinem', 'keiner', 'nie', 'niemals', 'ohne', 'nichts'],
    orNot: /\boder nicht\s*\??\s*$/u,
    computing: ['wie viele', 'zähle', 'anzahl', 'summe', 'berechne', 'durchschnitt', 'insgesamt'],
  },
  fr: {
    // Not "personne": it is also "a person".
    negations: ['ne', 'pas', 'jamais', 'aucun', 'aucune', 'sans', 'rien'],
    orNot: /\bou non\s*\??\s*$/u,
    computing: ['combien', 'compte les', 'nombre de', 'somme', 'calcule', 'moyenne', 'au total'],
  },
  es: {
    negations: ['no', 'nunca', 'ningún', 'ninguna', 'ninguno', 'sin', 'jamás', 'nada', 'nadie'],
    orNot: /\bo no\s*\??\s*$/u,
    computing: ['cuántos', 'cuántas', 'cuenta los', 'número de', 'suma', 'calcula', 'promedio', 'en total'],
  },
};

/** The first negation in `text` (a listed word, or an English "n't"), or null. */
export function negationIn(text: string): string | null {
  for (const wording of Object.values(WORDING)) {
    const words = wordsOf(text.toLowerCase().replace(wording.orNot, ''));
    const found = words.find((word) => wording.negations.includes(word) || /n['’]t$/u.test(word));
    if (found !== undefined) return found;
  }
  return null;
}

/** The first phrase in `text` that asks to count, sum or compute, or null. */
export function computationIn(text: string): string | null {
  const padded = ` ${wordsOf(text.toLowerCase()).join(' ')} `;
  for (const wording of Object.values(WORDING)) {
    const found = wording.computing.find((phrase) => padded.includes(` ${phrase} `));
    if (found !== undefined) return found;
  }
  return null;
}

/** The words of a text (letters and apostrophes), in order. */
function wordsOf(text: string): string[] {
  return text.match(/[\p{L}'’]+/gu) ?? [];
}
