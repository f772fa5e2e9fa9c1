// The service's parts, each a fastify plugin (fastify-plugin: registered into the app itself, not
// a scope of its own), in the order src/app.ts registers them.
export { default as requests } from './requests.js';
export { default as observability } from './observability.js';
export { default as connections } from './connections.js';
export { default as security } from './security.js';
export { default as limits } from './limits.js';
export { default as operations } from './operations.js';
export { default as health } from './health.js';
