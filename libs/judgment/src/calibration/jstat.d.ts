// The part of jstat (no bundled types) the calibration uses.
declare module 'jstat' {
  export const jStat: {
    /** The regularized lower incomplete beta function I_x(a, b). */
    ibeta(x: number, a: number, b: number): number;
    /** The inverse of I_x(a, b) in x. */
    ibetainv(p: number, a: number, b: number): number;
  };
}
