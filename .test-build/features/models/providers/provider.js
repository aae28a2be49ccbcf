export {};
//# sourceMappingURL=provider.js.map