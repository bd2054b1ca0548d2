// The Review backlog forecast's arithmetic (issue 32, point 4): a fluid first-in-first-out queue at the last 24 h's
// arrival and resolution rates, against each case's deadline.
import { FORECAST_WINDOW_HOURS, forecastBacklog } from './backlog-forecast';

const forecast = (
  hoursLeft: Array<number | null>,
  arrivals: number,
  resolutions: number,
  deadlineHours: number | null = 48,
) => forecastBacklog({ hoursLeft, arrivals, resolutions, windowHours: FORECAST_WINDOW_HOURS, deadlineHours });

describe('forecastBacklog', () => {
  it('forecasts nothing at risk when reviewers keep up', () => {
    // 10 in Review, 48 h left each; 24 arrivals and 48 resolutions a day: 2 an hour clear 96 before the deadline.
    const result = forecast(Array(10).fill(48), 24, 48);
    expect(result).toMatchObject({ inReview: 10, arrivalsPerHour: 1, resolutionsPerHour: 2, atRisk: 0 });
    expect(result.backlogAtHorizon).toBe(0); // 10 + (1 − 2) × 48 < 0
  });

  it('counts the cases in Review that cannot be reached before their deadline, in deadline order', () => {
    // 1 resolution an hour; deadlines in 1, 2, 2.5, 3 and 10 h: the 1st at 1 h, 2nd at 2 h, 3rd would be at 3 h
    // (> 2.5: expires, leaves the line), the 4th takes its place at 3 h (≤ 3), the 5th at 4 h.
    const result = forecast([10, 2.5, 1, 3, 2], 0, 24);
    expect(result.expiringInReview).toBe(1);
    expect(result.expiringArrivals).toBe(0);
    expect(result.atRisk).toBe(1);
  });

  it('forecasts every case to expire when nobody resolved any in the window, and past-deadline ones too', () => {
    expect(forecast([5, 40, -1], 0, 0).expiringInReview).toBe(3);
    expect(forecast([-1], 0, 240).expiringInReview).toBe(1);
  });

  it('counts arrivals that will wait past the deadline when arrivals outpace resolutions', () => {
    // Nothing in Review; 3 arrivals and 2 resolutions an hour, deadline 10 h: the line grows by 1 an hour and a case
    // arriving at t waits t / 2 h, past 10 h from t = 20 — beyond the horizon: none within it.
    expect(forecast([], 72, 48, 10).expiringArrivals).toBe(0);
    // With 30 in line already: a case arriving at t waits (30 + t) / 2 > 10 from t = 0 (slack 20 − 30 < 0): all 30.
    const loaded = forecast(Array(30).fill(100), 72, 48, 10);
    expect(loaded.expiringInReview).toBe(0);
    expect(loaded.expiringArrivals).toBe(30);
    expect(loaded.backlogAtHorizon).toBe(40);
    expect(loaded.atRisk).toBe(30);
  });

  it('counts only the arrivals before the line clears when resolutions outpace arrivals', () => {
    // 30 in line (far deadlines), 1 arrival and 2 resolutions an hour, deadline 10 h: slack 20 − 30 = −10, the line
    // shrinks by 1 an hour, so arrivals in the first 10 h (all of the horizon) wait over 10 h: 10 of them.
    expect(forecast(Array(30).fill(100), 24, 48, 10).expiringArrivals).toBe(10);
    expect(forecast(Array(25).fill(100), 24, 48, 10).expiringArrivals).toBe(5);
  });

  it('forecasts no expiry of cases without a deadline', () => {
    const result = forecast([null, null], 10, 0, null);
    expect(result).toMatchObject({ inReview: 2, withDeadline: 0, horizonHours: null, atRisk: 0 });
  });
});
