// `citadel serve` in this folder serves the demo application.
export { default } from './examples/blog/citadel.config.ts';
