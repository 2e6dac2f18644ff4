// The contract between the CLI and the service: every resource, request and response schema.
export * from './common.js';
export * from './credit-note.js';
export * from './error.js';
export * from './oauth.js';
export * from './receipt.js';
export * from './recipient.js';
export * from './returns.js';
export * from './template.js';
export * from './validate.js';
export * from './webhook.js';
