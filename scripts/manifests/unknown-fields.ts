// The Kubernetes API schemas that kubernetes-models validates with do not forbid unknown fields, so a
// misspelt optional field (`readinesProbe`) would pass. The same package ships TypeScript interfaces
// for every object; assigning each manifest as an object literal to its interface lets the TypeScript
// compiler's excess-property check reject any field the API does not define.
import path from 'node:path';
import ts from 'typescript';
import { at, type Manifest, type Problem } from './types';

const ROOT = path.resolve(__dirname, '..', '..');

export function unknownFieldProblems(manifests: Manifest[]): Problem[] {
  const sources = new Map<string, { manifest: Manifest; text: string }>();
  manifests.forEach((m, i) => {
    const { apiVersion, kind } = m.doc;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^[A-Za-z]+$/.test(kind)) return;
    const file = path.join(ROOT, '.manifest-check', `m${i}.ts`);
    const text = `import type { I${kind} as T } from 'kubernetes-models/${apiVersion}/${kind}';\nexport const manifest: T = ${JSON.stringify(m.doc, null, 1)};\n`;
    sources.set(file, { manifest: m, text });
  });
  if (!sources.size) return [];
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => sources.get(path.resolve(f))?.text ?? readFile(f);
  host.fileExists = (f) => sources.has(path.resolve(f)) || fileExists(f);
  host.getSourceFile = (f, lang, onError) => {
    const own = sources.get(path.resolve(f));
    return own ? ts.createSourceFile(f, own.text, lang, true) : getSourceFile(f, lang, onError);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  const problems: Problem[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const own = d.file ? sources.get(path.resolve(d.file.fileName)) : undefined;
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!own) {
      problems.push({ file: '(typescript)', where: d.file?.fileName ?? '', message });
      continue;
    }
    // Report only what the schema validation cannot see: fields the API does not define.
    if (d.code !== 2353 && d.code !== 2561) continue;
    const pathHint = d.file && d.start !== undefined ? jsonPathAt(d.file, d.start) : '';
    problems.push({
      file: own.manifest.file,
      where: at(own.manifest),
      message: `unknown field${pathHint ? ` at ${pathHint}` : ''}: ${message}`,
    });
  }
  return problems;
}

/** The chain of property names from the literal's root to the node at `pos` (e.g. spec.template.spec). */
function jsonPathAt(file: ts.SourceFile, pos: number): string {
  const names: string[] = [];
  let node: ts.Node | undefined = findNode(file, pos);
  while (node) {
    if (ts.isPropertyAssignment(node) && ts.isStringLiteral(node.name)) names.unshift(node.name.text);
    if (ts.isArrayLiteralExpression(node.parent ?? node) && node.parent)
      names.unshift(`[${(node.parent as ts.ArrayLiteralExpression).elements.indexOf(node as ts.Expression)}]`);
    node = node.parent;
  }
  return names.join('.').replace(/\.\[/g, '[');
}

function findNode(node: ts.Node, pos: number): ts.Node | undefined {
  if (pos < node.getStart() || pos >= node.getEnd()) return undefined;
  for (const child of node.getChildren()) {
    const found = findNode(child, pos);
    if (found) return found;
  }
  return node;
}
