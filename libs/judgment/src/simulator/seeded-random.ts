/** The simulator's seeded string hash; its PRNG is the calibration's mulberry32 (threshold-suggestion.ts). */

/** FNV-1a (32-bit) over UTF-16 code units, continuing from `seed`. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
