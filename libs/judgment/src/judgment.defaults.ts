// The defaults of the module options, in one place: what an option is when the app does not set it.

/** The default connection (`engine` option, `JUDGMENT_ENGINE`). */
export const DEFAULT_CONNECTION = 'jev';
/** The driver a connection uses when its options name none. */
export const DEFAULT_DRIVER = 'jev';
/** Days `prune()` keeps records (`persistence.retentionDays`, `JUDGMENT_RETENTION_DAYS`). */
export const DEFAULT_RETENTION_DAYS = 365;
/** Cases a Calibration run asks at once (`calibration.concurrency`). */
export const DEFAULT_CALIBRATION_CONCURRENCY = 8;
