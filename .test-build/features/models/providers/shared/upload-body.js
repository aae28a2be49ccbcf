export {};
//# sourceMappingURL=upload-body.js.map