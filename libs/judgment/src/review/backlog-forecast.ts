import type { ReviewBacklogForecast } from '../events/judgment.events';

/** The window the arrival and resolution rates of a Review backlog forecast are measured over, in hours. */
export const FORECAST_WINDOW_HOURS = 24;

/** How a backlog forecast is made, as printed with it. */
export const BACKLOG_FORECAST_METHOD =
  `Fluid first-in-first-out queue: cases enter Review and are resolved at the mean rates per hour of the last ` +
  `${FORECAST_WINDOW_HOURS} h; the cases in Review now are resolved in deadline order, so one is forecast to expire ` +
  'when fewer than its place in line can be resolved before its deadline (an expired case leaves the line); a case ' +
  'arriving within the deadline horizon expires when the line ahead of it then takes longer than the deadline.';

/** What a backlog forecast reads: the cases in Review now and the recent rates. */
export interface BacklogInput {
  /** Hours left before each case in Review reaches its deadline (negative: past it), or null when it has none. */
  readonly hoursLeft: ReadonlyArray<number | null>;
  /** Cases that entered Review in the last `windowHours`. */
  readonly arrivals: number;
  /** Cases in Review a person resolved in the last `windowHours` (expiries are not resolutions). */
  readonly resolutions: number;
  readonly windowHours: number;
  /** The review deadline, in hours, of a case entering Review now; null when the Decision declares none. */
  readonly deadlineHours: number | null;
}

/** A Review backlog forecast over the deadline horizon: the event's forecast without the Judgment it is of. */
export type BacklogForecast = Omit<ReviewBacklogForecast, 'judgment' | 'deadline'>;

/**
 * Forecasts a Review backlog against its deadlines (BACKLOG_FORECAST_METHOD). With r resolutions and a arrivals per
 * hour: the cases in Review now, in deadline order, are served at r; the k-th still in line is resolved after k / r
 * hours and expires when that is past its hours left. A case arriving t hours from now finds the q cases left in line
 * (q grows by a − r an hour) and expires when q / r exceeds the deadline H; those arriving within H are counted.
 */
export function forecastBacklog(input: BacklogInput): BacklogForecast {
  const window = input.windowHours > 0 ? input.windowHours : FORECAST_WINDOW_HOURS;
  const a = input.arrivals / window;
  const r = input.resolutions / window;
  const due = input.hoursLeft.filter((h): h is number => h !== null).sort((x, y) => x - y);
  let served = 0;
  let expiringInReview = 0;
  for (const hours of due) {
    // Resolved at (served + 1) / r hours from now; with no resolutions it is never resolved.
    if (r > 0 && hours >= 0 && (served + 1) / r <= hours) served += 1;
    else expiringInReview += 1;
  }
  const H = input.deadlineHours;
  const inReview = input.hoursLeft.length;
  if (H === null) {
    return {
      inReview,
      withDeadline: due.length,
      arrivalsPerHour: a,
      resolutionsPerHour: r,
      horizonHours: null,
      backlogAtHorizon: null,
      expiringInReview,
      expiringArrivals: 0,
      atRisk: expiringInReview,
    };
  }
  // The line a new case joins: the cases in Review now that do not expire, growing at a − r an hour.
  const line = inReview - expiringInReview;
  let expiringArrivals = 0;
  if (a > 0) {
    if (r === 0) expiringArrivals = a * H;
    else {
      // Expires when line + (a − r)·t > r·H: from t0 on (a > r), or up to t0 (a < r), within [0, H].
      const slack = r * H - line;
      if (a > r) expiringArrivals = a * Math.max(0, H - Math.max(0, slack / (a - r)));
      else if (a < r) expiringArrivals = slack < 0 ? a * Math.min(H, -slack / (r - a)) : 0;
      else expiringArrivals = slack < 0 ? a * H : 0;
    }
  }
  const whole = Math.floor(expiringArrivals + 1e-9);
  return {
    inReview,
    withDeadline: due.length,
    arrivalsPerHour: a,
    resolutionsPerHour: r,
    horizonHours: H,
    backlogAtHorizon: Math.max(0, inReview + (a - r) * H),
    expiringInReview,
    expiringArrivals: whole,
    atRisk: expiringInReview + whole,
  };
}
