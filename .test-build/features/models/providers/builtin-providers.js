import openai from './openai/index.js';
import groq from './groq/index.js';
import togetherAi from './together-ai/index.js';
import fireworksAi from './fireworks-ai/index.js';
import deepseek from './deepseek/index.js';
import xAi from './x-ai/index.js';
import perplexityAi from './perplexity-ai/index.js';
import openrouter from './openrouter/index.js';
import mistralAi from './mistral-ai/index.js';
import ollama from './ollama/index.js';
import vllm from './vllm/index.js';
import anthropic from './anthropic/index.js';
import bedrock from './bedrock/index.js';
import cohere from './cohere/index.js';
import google from './google/index.js';
import vertexAi from './vertex-ai/index.js';
import azureOpenai from './azure-openai/index.js';
/** Every provider that ships with the gateway. Adding a provider: add its folder, list it here. */
export const BUILTIN_PROVIDERS = [
    openai,
    groq,
    togetherAi,
    fireworksAi,
    deepseek,
    xAi,
    perplexityAi,
    openrouter,
    mistralAi,
    ollama,
    vllm,
    anthropic,
    bedrock,
    cohere,
    google,
    vertexAi,
    azureOpenai,
];
//# sourceMappingURL=builtin-providers.js.map