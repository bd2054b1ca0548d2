import { type JudgmentModuleOptions } from 'nestjs-judgment';

/** OpenAI-compatible servers, one connection each; `engine` names the default, `@Judgment({ engine })` another. */
export const openAiOptions: JudgmentModuleOptions = {
  engine: 'openai',
  engines: {
    openai: {
      driver: 'openai',
      key: process.env.OPENAI_API_KEY,
      url: process.env.OPENAI_BASE_URL, // default https://api.openai.com/v1
      model: 'gpt-4o-mini-2024-07-18', // a dated snapshot: pinned
      minCoverage: 0.5, // least share of the first token's probability on the answers (default 0.5)
      maxConcurrency: 4, // Questions of one Judgment asked at once (default 4)
      temperatureScaling: null, // or the value `judgment eval --fit-temperature` printed
    },
    azure: {
      driver: 'openai',
      url: 'https://my-resource.openai.azure.com',
      key: process.env.AZURE_OPENAI_API_KEY, // sent as the api-key header
      apiVersion: '2024-10-21',
      model: 'gpt-4o-mini-judgments', // the deployment name
      allowAliases: true, // a deployment name carries no version: pin the model in the deployment
    },
    vllm: { driver: 'openai', url: 'http://localhost:8000/v1', model: 'Qwen/Qwen2.5-7B-Instruct', allowAliases: true },
    llamacpp: { driver: 'openai', url: 'http://localhost:8080/v1', model: 'qwen2.5-7b-instruct', allowAliases: true },
    ollama: { driver: 'openai', url: 'http://localhost:11434/v1', model: 'qwen2.5:7b-instruct', allowAliases: true },
  },
};
