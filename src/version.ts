// Replaced at build time by esbuild's define; `dev` when run from sources.
declare const __SVC_VERSION__: string | undefined;
export const VERSION: string = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : 'dev';
