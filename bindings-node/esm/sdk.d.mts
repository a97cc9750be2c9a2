// Types of the ESM `oxmcp/sdk` entry point: the same as the CommonJS build's.
export * from '../dist/sdk.js';
