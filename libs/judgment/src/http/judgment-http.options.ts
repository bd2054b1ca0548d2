import type { Reviewer } from '../persistence/reviewer';

/** The request as the HTTP platform passes it (Express or Fastify): headers, and `user` when authentication ran. */
export type JudgmentHttpRequest = { headers: Record<string, string | string[] | undefined>; user?: unknown } & Record<
  string,
  any
>;

/** Options of `JudgmentHttpModule.forRoot()` / `forRootAsync()`. Both default to refusing. */
export interface JudgmentHttpOptions {
  /**
   * Whether the request may read records (the Review list and record details). Default: nobody may (every read is
   * 403 `forbidden`). Typical: `(request) => request.user?.roles.includes('reviewer')`.
   */
  canView?: (request: JudgmentHttpRequest) => boolean | Promise<boolean>;
  /**
   * The reviewer a resolve request speaks for: `{ type, id }` or a TypeORM entity (e.g. `request.user`). Default:
   * `request.user` when present. No reviewer → 403 `forbidden`. Whether that reviewer may resolve the record is
   * the app's ResolutionPolicy's call (none configured: nobody may).
   */
  reviewerFrom?: (request: JudgmentHttpRequest) => Reviewer | null | undefined | Promise<Reviewer | null | undefined>;
  /**
   * The key the review page (`ui: true`) signs its CSRF tokens with, at least 32 characters. Default: a random key
   * per application instance. Give every instance the same key when several serve the page behind one address, else a
   * form opened from one instance is refused by another (the reviewer reloads the page and sends it again).
   */
  csrfSecret?: string;
}
