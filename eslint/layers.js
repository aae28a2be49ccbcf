// The import boundaries of src/ (see README, "Layout"), as a local ESLint rule: each file's layer
// may import only the layers listed for it. Relative imports are resolved against the file,
// so the rule sees the folder an import really reaches.
import { dirname, relative, resolve, sep } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** The layer of a file under src/, or undefined outside src/. */
function layerOf(file) {
  const rel = relative(SRC, file).split(sep).join('/');
  if (rel.startsWith('..')) return undefined;
  const [top, second, third, fourth] = rel.split('/');
  if (top === 'kernel' || top === 'contract' || top === 'generated' || top === 'stages') return top;
  if (top === 'features') {
    // A provider (providers/<id>/, providers/shared/, providers/provider.ts); the registry files beside them are feature code.
    if (second === 'models' && third === 'providers' && fourth !== undefined && !/^(provider-registry|builtin-providers)\.ts$/.test(fourth)) return 'provider';
    return 'features';
  }
  return 'root';
}

const ALLOWED = {
  kernel: ['kernel', 'generated'],
  contract: ['contract'],
  generated: ['generated'],
  provider: ['provider', 'contract', 'generated'],
  features: ['features', 'provider', 'kernel', 'contract', 'generated'],
  stages: ['stages', 'features', 'provider', 'kernel', 'contract', 'generated'],
  root: ['root', 'stages', 'features', 'provider', 'kernel', 'contract', 'generated'],
};

const WHY = {
  kernel: 'the kernel knows nothing of AI: it imports nothing from contract, features or stages',
  contract: 'the wire contract depends on nothing: it imports only contract files',
  generated: 'generated types import only generated types',
  provider: 'a provider imports only the contract and shared provider code (no engine, store or HTTP)',
  features: 'features build on kernel and contract; stages and the composition root build on them, not the reverse',
  stages: 'stages never import the composition root',
  root: 'the composition root',
};

/** The feature folder (src/features/<name>/) a file belongs to, or undefined. */
function featureOf(file) {
  const [top, name] = relative(SRC, file).split(sep);
  return top === 'features' && name !== undefined && !name.endsWith('.ts') ? name : undefined;
}

/** Whether `target` is the public entry of its feature: src/features/<name>/index.ts. */
function isPublicEntry(target) {
  const parts = relative(SRC, target).split(sep);
  return parts.length === 3 && parts[2] === 'index.ts';
}

export const layers = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Enforces the layers of src/ (kernel, contract, features (providers), stages, composition root) and that features, and the stages of src/stages, use a feature only through its public entry.',
    },
    schema: [],
    messages: {
      layer: '{{from}} may not import {{to}} ({{target}}): {{why}}.',
      feature:
        "features/{{fromFeature}} may not import another feature's insides ({{target}}): a feature uses another only through its public entry, features/{{toFeature}}/index.ts (what two features share lives in the kernel or a shared feature).",
      stage:
        "a stage of src/stages may not import a feature's insides ({{target}}): stages use a feature only through its public entry, features/{{toFeature}}/index.ts (a stage that is one feature's own lives in that feature's stages/ folder).",
    },
  },
  create(context) {
    const file = context.filename;
    const from = layerOf(file);
    if (!from) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolve(dirname(file), source).replace(/\.js$/, '.ts');
      const to = layerOf(target);
      const shown = relative(SRC, target).split(sep).join('/');
      if (to && !ALLOWED[from].includes(to)) {
        context.report({ node, messageId: 'layer', data: { from, to, target: shown, why: WHY[from] } });
        return;
      }
      // One feature reaches another only through its public entry (features/<name>/index.ts), and so do the stages of src/stages.
      const fromFeature = featureOf(file);
      const toFeature = featureOf(target);
      if (from === 'stages' && toFeature && !isPublicEntry(target)) {
        context.report({ node, messageId: 'stage', data: { toFeature, target: shown } });
        return;
      }
      if (fromFeature && toFeature && fromFeature !== toFeature && !isPublicEntry(target)) {
        context.report({ node, messageId: 'feature', data: { fromFeature, toFeature, target: shown } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { layers } };
