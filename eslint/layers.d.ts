import type { Rule } from 'eslint';

/** The `layers` rule of eslint/layers.js (types for the tests that run it). */
export declare const layers: Rule.RuleModule;
declare const plugin: { rules: { layers: Rule.RuleModule } };
export default plugin;
