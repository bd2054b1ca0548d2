import type { Classification } from '../questions/classification';
import type { Likelihood } from '../questions/likelihood';
import type { LikelihoodSet } from '../questions/likelihood-set';
import type { Rating } from '../questions/rating';

/** The Questions a Judgment declares, as its questions() method types them. */
export type QuestionsOf<J> = J extends { questions(): infer Q } ? Q : never;

type IsWide<Q> = string extends keyof Q ? true : false;

/** The keys of a Judgment's Questions of one kind (any string when the Judgment's type is not known). */
export type KeysOfKind<J, K> =
  IsWide<QuestionsOf<J>> extends true
    ? string
    : { [P in keyof QuestionsOf<J>]: QuestionsOf<J>[P] extends K ? P : never }[keyof QuestionsOf<J>] & string;

export type LikelihoodKey<J> = KeysOfKind<J, Likelihood>;
export type ClassificationKey<J> = KeysOfKind<J, Classification<any, any>>;
export type RatingKey<J> = KeysOfKind<J, Rating>;
export type LikelihoodSetKey<J> = KeysOfKind<J, LikelihoodSet<any>>;

type At<J, K> = K extends keyof QuestionsOf<J> ? QuestionsOf<J>[K] : never;

/** The labels of a Classification or Likelihood Set declared under `K`. */
export type LabelsOf<J, K> =
  IsWide<QuestionsOf<J>> extends true
    ? string
    : At<J, K> extends Classification<infer L, any>
      ? L
      : At<J, K> extends LikelihoodSet<infer L>
        ? L
        : never;

/** Whether the Classification under `K` offers the escape option. */
export type NoneOf<J, K> =
  IsWide<QuestionsOf<J>> extends true ? boolean : At<J, K> extends Classification<any, infer N> ? N : never;
