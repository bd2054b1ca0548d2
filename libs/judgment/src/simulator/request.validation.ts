/** Request validation for both dialects. Returns normalised questions, or the error response to send. */
import type { NormalQuestion, QuestionType } from './simulated-answers';

export interface ValidationFailure {
  status: number;
  body: unknown;
}

export type ValidationResult = { ok: true; questions: NormalQuestion[] } | { ok: false; failure: ValidationFailure };

type Loc = Array<string | number>;

interface PydanticError {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

const TYPES: readonly QuestionType[] = ['noul', 'choice', 'score'];
const TOP_LEVEL = ['model', 'state', 'questions'];
const QUESTION_KEYS = new Set(['type', 'instructions', 'criteria']);

export const JEV_MIN_OPTIONS = 2;
export const JEV_MAX_OPTIONS = 255;
export const JEV_MIN_LEVELS = 2;
export const JEV_MAX_LEVELS = 10;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEntry(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'object';
}

function entryError(loc: Loc, input: unknown): PydanticError {
  return { type: 'string_type', loc, msg: 'Input should be a valid string', input };
}

function sizeError(kind: 'Dictionary' | 'List', loc: Loc, input: unknown, actual: number, min: number, max: number) {
  const tooShort = actual < min;
  const bound = tooShort ? min : max;
  return {
    type: tooShort ? 'too_short' : 'too_long',
    loc,
    msg: `${kind} should have at ${tooShort ? 'least' : 'most'} ${bound} item${bound === 1 ? '' : 's'} after validation, not ${actual}`,
    input,
    ctx: { field_type: kind, [tooShort ? 'min_length' : 'max_length']: bound, actual_length: actual },
  };
}

/** Jev (pydantic-style) validation: 422 with a `detail` array, or 400 with a string detail for an empty choice map. */
export function validateJev(body: unknown): ValidationResult {
  const errors: PydanticError[] = [];
  const fail = (): ValidationResult => ({ ok: false, failure: { status: 422, body: { detail: errors } } });
  if (!isPlainObject(body)) {
    errors.push({
      type: 'model_attributes_type',
      loc: ['body'],
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: body,
    });
    return fail();
  }
  for (const field of TOP_LEVEL) {
    if (!(field in body)) errors.push({ type: 'missing', loc: ['body', field], msg: 'Field required', input: body });
  }
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL.includes(key)) {
      errors.push({
        type: 'extra_forbidden',
        loc: ['body', key],
        msg: 'Extra inputs are not permitted',
        input: body[key],
      });
    }
  }
  if ('model' in body && typeof body.model !== 'string') errors.push(entryError(['body', 'model'], body.model));
  if ('state' in body && (typeof body.state !== 'object' || body.state === null)) {
    if (typeof body.state !== 'string') {
      errors.push(
        {
          type: 'string_type',
          loc: ['body', 'state', 'str'],
          msg: 'Input should be a valid string',
          input: body.state,
        },
        {
          type: 'dict_type',
          loc: ['body', 'state', 'dict[str,any]'],
          msg: 'Input should be a valid dictionary',
          input: body.state,
        },
        {
          type: 'list_type',
          loc: ['body', 'state', 'list[any]'],
          msg: 'Input should be a valid list',
          input: body.state,
        },
      );
    }
  }
  const questions: NormalQuestion[] = [];
  const emptyChoices: string[] = [];
  if ('questions' in body) {
    const qs = body.questions;
    if (!isPlainObject(qs)) {
      errors.push({
        type: 'dict_type',
        loc: ['body', 'questions'],
        msg: 'Input should be a valid dictionary',
        input: qs,
      });
    } else {
      const ids = Object.keys(qs);
      if (ids.length === 0) errors.push(sizeError('Dictionary', ['body', 'questions'], qs, 0, 1, Infinity));
      for (const id of ids) {
        const q = validateJevQuestion(id, qs[id], errors, emptyChoices);
        if (q) questions.push(q);
      }
    }
  }
  if (errors.length > 0) return fail();
  if (emptyChoices.length > 0) {
    return {
      ok: false,
      failure: { status: 400, body: { detail: `Choice question must have at least one choice: ${emptyChoices[0]}` } },
    };
  }
  return { ok: true, questions };
}

function validateJevQuestion(
  id: string,
  q: unknown,
  errors: PydanticError[],
  emptyChoices: string[],
): NormalQuestion | undefined {
  const base: Loc = ['body', 'questions', id];
  if (!isPlainObject(q)) {
    errors.push({
      type: 'model_attributes_type',
      loc: base,
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: q,
    });
    return undefined;
  }
  if (!('type' in q)) {
    errors.push({
      type: 'union_tag_not_found',
      loc: base,
      msg: "Unable to extract tag using discriminator 'type'",
      input: q,
      ctx: { discriminator: "'type'" },
    });
    return undefined;
  }
  const type = q.type;
  if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) {
    errors.push({
      type: 'union_tag_invalid',
      loc: base,
      msg: `Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'noul', 'choice', 'score'`,
      input: q,
      ctx: { discriminator: "'type'", tag: String(type), expected_tags: "'noul', 'choice', 'score'" },
    });
    return undefined;
  }
  const loc: Loc = [...base, type];
  const before = errors.length;
  for (const key of Object.keys(q)) {
    if (!QUESTION_KEYS.has(key)) {
      errors.push({
        type: 'extra_forbidden',
        loc: [...loc, key],
        msg: 'Extra inputs are not permitted',
        input: q[key],
      });
    }
  }
  if (!('instructions' in q))
    errors.push({ type: 'missing', loc: [...loc, 'instructions'], msg: 'Field required', input: q });
  else if (!isEntry(q.instructions)) errors.push(entryError([...loc, 'instructions'], q.instructions));
  const criteria = q.criteria;
  const question: NormalQuestion = {
    id,
    type: type as QuestionType,
    instructions: q.instructions,
    criteria,
    labels: [],
    levels: [],
  };
  if (type === 'noul') {
    if (criteria !== undefined && criteria !== null) {
      if (!isPlainObject(criteria)) {
        errors.push({
          type: 'dict_type',
          loc: [...loc, 'criteria'],
          msg: 'Input should be a valid dictionary',
          input: criteria,
        });
      } else {
        for (const key of Object.keys(criteria)) {
          if (key !== 'true' && key !== 'false') {
            errors.push({
              type: 'extra_forbidden',
              loc: [...loc, 'criteria', key],
              msg: 'Extra inputs are not permitted',
              input: criteria[key],
            });
          } else if (!isEntry(criteria[key])) errors.push(entryError([...loc, 'criteria', key], criteria[key]));
        }
      }
    }
  } else if (!('criteria' in q)) {
    errors.push({ type: 'missing', loc: [...loc, 'criteria'], msg: 'Field required', input: q });
  } else if (type === 'choice') {
    if (!isPlainObject(criteria)) {
      errors.push({
        type: 'dict_type',
        loc: [...loc, 'criteria'],
        msg: 'Input should be a valid dictionary',
        input: criteria,
      });
    } else {
      const labels = Object.keys(criteria);
      if (labels.length === 0) emptyChoices.push(id);
      else if (labels.length < JEV_MIN_OPTIONS || labels.length > JEV_MAX_OPTIONS) {
        errors.push(
          sizeError('Dictionary', [...loc, 'criteria'], criteria, labels.length, JEV_MIN_OPTIONS, JEV_MAX_OPTIONS),
        );
      }
      for (const label of labels) {
        if (!isEntry(criteria[label])) errors.push(entryError([...loc, 'criteria', label], criteria[label]));
      }
      question.labels = labels;
    }
  } else {
    if (!Array.isArray(criteria)) {
      errors.push({
        type: 'list_type',
        loc: [...loc, 'criteria'],
        msg: 'Input should be a valid list',
        input: criteria,
      });
    } else {
      if (criteria.length < JEV_MIN_LEVELS || criteria.length > JEV_MAX_LEVELS) {
        errors.push(sizeError('List', [...loc, 'criteria'], criteria, criteria.length, JEV_MIN_LEVELS, JEV_MAX_LEVELS));
      }
      criteria.forEach((level, i) => {
        if (!isEntry(level)) errors.push(entryError([...loc, 'criteria', i], level));
      });
      question.levels = criteria;
      question.labels = criteria.map((_, i) => String(i));
    }
  }
  return errors.length === before ? question : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Laya (`laya-serve`): FastAPI HTTPExceptions, `{"detail": "<string>"}`, first error wins.

export const LAYA_MAX_QUESTIONS = 64;
export const LAYA_MAX_STATE_CHARS = 50_000;
export const LAYA_MAX_CHOICE_OPTIONS = 100;
export const LAYA_MAX_SCORE_LEVELS = 32;
export const LAYA_MAX_TOTAL_OPTIONS = 512;

const layaFail = (status: number, detail: string): ValidationResult => ({
  ok: false,
  failure: { status, body: { detail } },
});

export function validateLaya(body: unknown, maxLabels: number, headMaxLen: number): ValidationResult {
  if (!isPlainObject(body) || !('questions' in body)) {
    return layaFail(400, "request body must be an object with a 'questions' field");
  }
  if (body.state === undefined || body.state === null) return layaFail(400, "'state' is required");
  if (!isPlainObject(body.questions)) return layaFail(400, "'questions' must be an object");
  const qs = body.questions;
  const ids = Object.keys(qs);
  if (ids.length > LAYA_MAX_QUESTIONS)
    return layaFail(413, `too many questions (${ids.length} > ${LAYA_MAX_QUESTIONS})`);
  const stateChars = typeof body.state === 'string' ? body.state.length : JSON.stringify(body.state).length;
  if (stateChars > LAYA_MAX_STATE_CHARS) {
    return layaFail(413, `state too large (${stateChars} > ${LAYA_MAX_STATE_CHARS} chars)`);
  }
  const questions: NormalQuestion[] = [];
  let totalOptions = 0;
  for (const id of ids) {
    const q = qs[id];
    if (!isPlainObject(q)) return layaFail(422, `question '${id}': must be an object`);
    const type = q.type;
    if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) {
      return layaFail(422, `question '${id}': unknown type '${String(type)}'; use one of ['choice', 'noul', 'score']`);
    }
    if (q.instructions === undefined || q.instructions === null) {
      return layaFail(422, `question '${id}': 'instructions' is required`);
    }
    if ('labels' in q && type !== 'noul')
      return layaFail(422, `question '${id}': 'labels' is only valid on noul questions`);
    const criteria = q.criteria;
    const question: NormalQuestion = {
      id,
      type: type as QuestionType,
      instructions: q.instructions,
      criteria,
      labels: [],
      levels: [],
    };
    if (type === 'noul') {
      if (criteria !== undefined && criteria !== null && !isPlainObject(criteria)) {
        return layaFail(422, `question '${id}': noul 'criteria' must be an object`);
      }
    } else if (type === 'choice') {
      const labels = Array.isArray(criteria)
        ? criteria.map((c) => (typeof c === 'string' ? c : JSON.stringify(c)))
        : isPlainObject(criteria)
          ? Object.keys(criteria)
          : [];
      if (labels.length === 0)
        return layaFail(422, `question '${id}': choice 'criteria' must be a non-empty object or list`);
      if (labels.length > LAYA_MAX_CHOICE_OPTIONS) {
        return layaFail(413, `too many choice options for '${id}' (${labels.length} > ${LAYA_MAX_CHOICE_OPTIONS})`);
      }
      if (labels.length > maxLabels) return layaFail(422, `question '${id}' options exceed head_max_len=${headMaxLen}`);
      question.labels = labels;
      totalOptions += labels.length;
    } else {
      if (!Array.isArray(criteria) || criteria.length === 0) {
        return layaFail(422, `question '${id}': score 'criteria' must be a non-empty list`);
      }
      if (criteria.length > LAYA_MAX_SCORE_LEVELS) {
        return layaFail(413, `too many score levels for '${id}' (${criteria.length} > ${LAYA_MAX_SCORE_LEVELS})`);
      }
      question.levels = criteria;
      question.labels = criteria.map((_, i) => String(i));
      totalOptions += criteria.length;
    }
    questions.push(question);
  }
  if (totalOptions > LAYA_MAX_TOTAL_OPTIONS) {
    return layaFail(413, `too many options across questions (${totalOptions} > ${LAYA_MAX_TOTAL_OPTIONS})`);
  }
  return { ok: true, questions };
}
