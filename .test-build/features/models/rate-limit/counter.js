export {};
//# sourceMappingURL=counter.js.map