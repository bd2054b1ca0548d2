/**
 * Stand-ins for the Subject while `judgment check` reads a Judgment's Evidence shape without one: any property, call
 * or conversion of a probe gives another probe (or an empty string), so evidence() builds its object literal around
 * them. Whatever is a probe in the result is unknown until run time.
 */
const probes = new WeakSet<object>();

/** Whether a value is a probe (a value only known at run time). */
export function isShapeProbe(value: unknown): boolean {
  return (typeof value === 'function' || (typeof value === 'object' && value !== null)) && probes.has(value);
}

/** A new probe. */
export function shapeProbe(): unknown {
  const probe: unknown = new Proxy(function probeTarget() {}, {
    get: (_target, property) => {
      if (property === Symbol.toPrimitive) return () => '';
      if (property === Symbol.iterator) return function* () {};
      if (property === 'toJSON' || property === 'then') return undefined;
      return shapeProbe();
    },
    apply: () => shapeProbe(),
    construct: () => shapeProbe() as object,
    has: () => true,
  });
  probes.add(probe as object);
  return probe;
}
