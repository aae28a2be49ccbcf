export {};
//# sourceMappingURL=capability.js.map