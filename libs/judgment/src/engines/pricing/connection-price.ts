import { InvalidPrice } from '../../errors';
import type { ConnectionPrice, EngineConnectionOptions } from '../../judgment.options';
import { JUDGMENT_DEFAULTS } from '../../judgment.defaults';
import { settingNumber } from '../connection.settings';

/** The currency of a price that names none. */
export const DEFAULT_CURRENCY = JUDGMENT_DEFAULTS.connection.priceCurrency;

/** A connection's price, checked: each figure a finite number ≥ 0, or null when the price leaves it out. */
export interface ResolvedPrice {
  readonly inputPerMillion: number | null;
  readonly outputPerMillion: number | null;
  readonly perRequest: number | null;
  readonly currency: string;
}

const FIGURES = ['inputPerMillion', 'outputPerMillion', 'perRequest'] as const;
const FIELDS: readonly string[] = [...FIGURES, 'currency'];
const EXAMPLE = '{ inputPerMillion: 0.15, outputPerMillion: 0.6, currency: "USD" }';

/**
 * Reads `engines.<name>.price`: null when the connection declares none. Throws InvalidPrice naming the connection and
 * the field when the price is not an object, names an unknown field, has a figure that is not a finite number ≥ 0
 * (plain decimal strings, as configuration services deliver them, are read as numbers), a currency that is not a
 * short code, or no figure at all.
 */
export function connectionPrice(name: string, config: EngineConnectionOptions): ResolvedPrice | null {
  const price: unknown = config.price;
  if (price === undefined || price === null) return null;
  const option = `engines.${name}.price`;
  if (typeof price !== 'object' || Array.isArray(price)) {
    throw new InvalidPrice(
      `The Engine connection "${name}" has an invalid price: ${option} is ${describe(price)}; set it to an object ` +
        `such as ${EXAMPLE}, or leave it out.`,
    );
  }
  const given = price as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!FIELDS.includes(key)) {
      throw new InvalidPrice(
        `The Engine connection "${name}" has an unknown price field ${option}.${key}: a price has ` +
          `inputPerMillion, outputPerMillion, perRequest and currency.`,
      );
    }
  }
  const [inputPerMillion, outputPerMillion, perRequest] = FIGURES.map((figure) => priceFigure(name, given, figure));
  if (inputPerMillion === null && outputPerMillion === null && perRequest === null) {
    throw new InvalidPrice(
      `The Engine connection "${name}" has a price without a figure: set ${option}.inputPerMillion, ` +
        `outputPerMillion or perRequest (0 for free), or leave ${option} out when its cost is unknown.`,
    );
  }
  return { inputPerMillion, outputPerMillion, perRequest, currency: currency(name, given.currency) };
}

function priceFigure(name: string, price: Record<string, unknown>, figure: keyof ConnectionPrice): number | null {
  const value = price[figure];
  if (value === undefined || value === null) return null;
  const number = settingNumber(value);
  if (Number.isFinite(number) && number >= 0) return number;
  const what =
    figure === 'perRequest' ? 'one paid request' : `1,000,000 ${figure.slice(0, -'PerMillion'.length)} tokens`;
  throw new InvalidPrice(
    `The Engine connection "${name}" has an invalid price: engines.${name}.price.${figure} is ${describe(value)}; ` +
      `set it to the price of ${what}, a finite number of 0 or more.`,
  );
}

function currency(name: string, value: unknown): string {
  if (value === undefined || value === null) return DEFAULT_CURRENCY;
  if (typeof value === 'string' && /^[A-Za-z0-9_-]{1,16}$/.test(value)) return value;
  throw new InvalidPrice(
    `The Engine connection "${name}" has an invalid price: engines.${name}.price.currency is ${describe(value)}; ` +
      `set it to a code of 1 to 16 letters, digits, _ or - such as "USD" or "EUR" (default ${DEFAULT_CURRENCY}).`,
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
