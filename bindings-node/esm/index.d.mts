// Types of the ESM entry point: the same as the CommonJS build's.
export * from '../dist/index.js';
