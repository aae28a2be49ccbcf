export {};
//# sourceMappingURL=upstream-request.js.map