import {
  type Engine,
  type EngineAnswer,
  type EngineRequest,
  type EngineResponse,
  Provenance,
} from 'nestjs-judgment/drivers';

/**
 * A custom Engine: any backend that answers every Question of one Judgment in one round. This one only knows
 * Likelihoods, and answers 0.9 when the Evidence mentions a keyword from the connection's options.
 */
export class KeywordEngine implements Engine {
  constructor(
    private readonly connection: string,
    private readonly keywords: string[],
  ) {}

  model(): string {
    return 'keywords-1.0.0';
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const text = JSON.stringify(request.evidence).toLowerCase();
    const hit = this.keywords.some((keyword) => text.includes(keyword));
    const answers: Record<string, EngineAnswer> = {};
    for (const [key, question] of request.questions) {
      if (question.kind !== 'likelihood') throw new Error(`KeywordEngine cannot answer the ${question.kind} "${key}".`);
      answers[key] = hit ? 0.9 : 0.1;
    }
    return { answers, provenance: new Provenance(this.connection, this.model(), null, { usage: { input_tokens: 0 } }) };
  }
}
