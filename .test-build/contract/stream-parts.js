export {};
//# sourceMappingURL=stream-parts.js.map