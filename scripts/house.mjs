// The house of src/: its rooms (the top-level folders, and the top-level files such as
// factory.ts or errors.ts), drawn from the imports of the TypeScript sources: every import
// and export-from, type-only ones too, and every dynamic import(). It prints the rooms on
// their floors (a topological order of the room graph), the intended order of the rooms
// (FLOORS below: imports only go down), every import that goes up, and every circle (Tarjan's
// strongly connected components over files, then over rooms). `npm run house` prints it;
// `--json` gives the same as data; `--check` exits 1 on a circle that spans rooms or an
// upward import not in ALLOWED. test/house.test.ts runs the check.
//
// Usage: node scripts/house.mjs [--json] [--check] [--src DIR]
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The intended floors, lowest first; a room imports only rooms on its floor or below. Rooms
 * on one floor may import each other, but no circle may span rooms.
 */
export const FLOORS = [
  { rooms: ['errors', 'clock', 'version', 'net-port', 'package-root', 'startup', 'ids'], why: 'leaves: plain values, typed errors, paths of the package, the start-up cache' },
  { rooms: ['crypto'], why: 'pure cryptography and money arithmetic: hybrid encryption, keys, JCS, hashes' },
  { rooms: ['contract'], why: 'zod schemas of every resource, request and record; client and sandbox share them' },
  { rooms: ['io'], why: 'streams, TTY and colour rules, output, prompts: what every room may print through' },
  { rooms: ['store'], why: 'the state layer: the ledger engines, locks, private files; the only room that persists' },
  { rooms: ['config', 'secrets'], why: 'the profile settings and the secret stores, kept through the state layer' },
  { rooms: ['net'], why: 'how requests travel: timeouts, proxies, trusted CAs, from the settings' },
  { rooms: ['api'], why: 'the HTTP client (one transport for every request) and one module per resource group' },
  { rooms: ['factory'], why: 'the lazy getters that tie the rooms below together for every room above' },
  { rooms: ['auth', 'grants', 'keys', 'help', 'completion'], why: 'sessions, tokens and Grants; the merchant keys; help and the completion cache: what the domain asks of the factory' },
  { rooms: ['receipts', 'credit-notes', 'webhook'], why: 'the domain: what a verb does' },
  { rooms: ['queue-screen'], why: 'the interactive queue: one screen built from parts, dispatching keys to what the single commands call' },
  { rooms: ['sandbox'], why: 'the local service, built on the contract, the state layer and the webhook signature' },
  { rooms: ['commands'], why: 'one verb per file: a thin shell of options, prompts and output' },
  { rooms: ['root'], why: 'the command tree: each verb lazily imported' },
  { rooms: ['main'], why: 'builds the factory, runs the program, maps errors to exit codes' },
  { rooms: ['reference'], why: 'the command reference (docs/commands, docs/man) rendered from the tree: only scripts/gen-docs.mjs and its test import it, never the CLI' },
];

/** Upward imports that stay, `from → to` as files relative to src/, each with its reason. */
export const ALLOWED = {};

/** The room of a file relative to src/: its top-level folder, or the file's name without `.ts`. */
export function roomOf(file) {
  const parts = file.split('/');
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.(ts|tsx|mts|cts)$/, '');
}

function sourceFiles(dir, base = dir) {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path, base));
    else if (/\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) files.push(relative(base, path).split(sep).join('/'));
  }
  return files;
}

/** Every module a source names: import and export-from (`type` ones too), import(), and import("…") types. */
export function importsOf(text, fileName = 'file.ts') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(node) ? Boolean(node.importClause?.isTypeOnly) || onlyTypeSpecifiers(node.importClause) : node.isTypeOnly;
      found.push({ specifier: node.moduleSpecifier.text, kind: ts.isExportDeclaration(node) ? 're-export' : typeOnly ? 'type' : 'static' });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push({ specifier: argument.text, kind: 'dynamic' });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, kind: 'type' });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, kind: 'static' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `import { type A, type B } from` names only types, as `import type` does. */
function onlyTypeSpecifiers(clause) {
  const bindings = clause?.namedBindings;
  return Boolean(clause && !clause.name && bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly));
}

/** A relative specifier as a file relative to src/, or undefined for packages, node: modules and files outside src/. */
function resolveSpecifier(srcDir, from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(srcDir, dirname(from), specifier);
  const candidates = [target, target.replace(/\.(m|c)?js$/, '.$1ts'), `${target}.ts`, join(target, 'index.ts')];
  const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (found === undefined) return undefined;
  const rel = relative(srcDir, found).split(sep).join('/');
  return rel.startsWith('..') ? undefined : rel;
}

/** Tarjan's strongly connected components of a graph given as Map<node, Iterable<node>>; each in a stable order. */
export function stronglyConnected(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const connect = (start) => {
    // Iterative, so that a long chain of files cannot overflow the call stack.
    const work = [{ node: start, edges: [...(graph.get(start) ?? [])], at: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.edges.length) {
        const to = frame.edges[frame.at++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edges: [...(graph.get(to) ?? [])], at: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(to)));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node), low.get(frame.node)));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component = [];
        let node;
        do {
          node = stack.pop();
          onStack.delete(node);
          component.push(node);
        } while (node !== frame.node);
        components.push(component.sort());
      }
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return components;
}

/** One shortest circle through the nodes of a component, as a path that starts and ends at its first node. */
function circleThrough(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/**
 * Longest-path floors of the room graph with each circle of rooms taken as one: a room is one
 * floor above the highest room it imports. The drawing of the house as it is.
 */
function drawnFloors(rooms, roomGraph) {
  const components = stronglyConnected(roomGraph);
  const componentOf = new Map();
  components.forEach((c, i) => c.forEach((room) => componentOf.set(room, i)));
  const floorOf = new Map();
  const floor = (i) => {
    if (floorOf.has(i)) return floorOf.get(i);
    floorOf.set(i, 0);
    let highest = -1;
    for (const room of components[i]) {
      for (const to of roomGraph.get(room) ?? []) {
        const j = componentOf.get(to);
        if (j !== i) highest = Math.max(highest, floor(j));
      }
    }
    floorOf.set(i, highest + 1);
    return highest + 1;
  };
  const floors = [];
  for (const room of rooms) {
    const f = floor(componentOf.get(room));
    (floors[f] ??= []).push(room);
  }
  return floors.map((f) => f ?? []);
}

/** The house of the sources under srcDir, checked against the intended floors and the allowed upward imports. */
export function analyze({ srcDir, floors = FLOORS, allowed = ALLOWED }) {
  const files = sourceFiles(srcDir);
  const edges = [];
  for (const file of files) {
    const seen = new Map();
    for (const { specifier, kind } of importsOf(readFileSync(join(srcDir, file), 'utf8'), file)) {
      const to = resolveSpecifier(srcDir, file, specifier);
      if (to === undefined || to === file) continue;
      // One edge per pair of files; a value import outweighs a type-only or a dynamic one.
      const earlier = seen.get(to);
      if (earlier === undefined) seen.set(to, kind);
      else if (earlier !== 'static' && (kind === 'static' || kind === 're-export')) seen.set(to, kind);
    }
    for (const [to, kind] of seen) edges.push({ from: file, to, kind });
  }

  const rooms = [...new Set(files.map(roomOf))].sort();
  const intendedFloor = new Map();
  floors.forEach((floor, i) => floor.rooms.forEach((room) => intendedFloor.set(room, i)));
  const unplaced = rooms.filter((r) => !intendedFloor.has(r));
  const isUpward = (e) => (intendedFloor.get(roomOf(e.to)) ?? -1) > (intendedFloor.get(roomOf(e.from)) ?? Infinity);
  const upward = edges.filter(isUpward).map((e) => ({ ...e, reason: allowed[`${e.from} → ${e.to}`] }));
  const staleAllowed = Object.keys(allowed).filter((key) => !upward.some((e) => `${e.from} → ${e.to}` === key));
  const isAllowed = (e) => isUpward(e) && allowed[`${e.from} → ${e.to}`] !== undefined;

  const fileGraph = new Map(files.map((f) => [f, new Set()]));
  for (const edge of edges) fileGraph.get(edge.from).add(edge.to);
  /** The room graph of the given imports. */
  const roomGraphOf = (which) => {
    const graph = new Map(rooms.map((r) => [r, new Set()]));
    for (const edge of which) if (roomOf(edge.from) !== roomOf(edge.to)) graph.get(roomOf(edge.from)).add(roomOf(edge.to));
    return graph;
  };
  const roomGraph = roomGraphOf(edges);
  // The allowed upward imports close circles of rooms by design; every other circle is a fault.
  const keptGraph = roomGraphOf(edges.filter((e) => !isAllowed(e)));
  const roomEdges = new Map();
  for (const edge of edges) {
    if (roomOf(edge.from) === roomOf(edge.to)) continue;
    const key = `${roomOf(edge.from)} → ${roomOf(edge.to)}`;
    roomEdges.set(key, (roomEdges.get(key) ?? 0) + 1);
  }

  const fileCycles = stronglyConnected(fileGraph)
    .filter((c) => c.length > 1)
    .map((files) => ({ files, rooms: [...new Set(files.map(roomOf))].sort(), circle: circleThrough(fileGraph, files) }));
  const roomCycles = stronglyConnected(roomGraph)
    .filter((c) => c.length > 1)
    .map((rooms) => ({ rooms, circle: circleThrough(roomGraph, rooms) }));
  const faultyRoomCycles = stronglyConnected(keptGraph)
    .filter((c) => c.length > 1)
    .map((rooms) => ({ rooms, circle: circleThrough(keptGraph, rooms) }));

  const problems = [
    ...unplaced.map((room) => `room ${room} is on no floor of FLOORS (scripts/house.mjs)`),
    ...fileCycles.filter((c) => c.rooms.length > 1).map((c) => `a circle of ${c.files.length} files spans rooms ${c.rooms.join(', ')}: ${c.circle.join(' → ')}`),
    ...faultyRoomCycles.map((c) => `a circle of ${c.rooms.length} rooms (${c.rooms.join(', ')}), not only through allowed upward imports: ${c.circle.join(' → ')}`),
    ...upward.filter((e) => e.reason === undefined).map((e) => `upward import ${e.from} → ${e.to} (${e.kind}): ${roomOf(e.from)} is below ${roomOf(e.to)}`),
    ...staleAllowed.map((key) => `ALLOWED names ${key}, which is no upward import (any more): remove it`),
  ];
  return {
    files: files.length,
    imports: edges.length,
    rooms,
    edges,
    drawn: drawnFloors(rooms, roomGraphOf(edges.filter((e) => !isUpward(e)))),
    floors,
    roomEdges: Object.fromEntries([...roomEdges].sort(([a], [b]) => a.localeCompare(b))),
    upward,
    fileCycles,
    roomCycles,
    problems,
  };
}

function print(house) {
  const out = [];
  out.push(`The house of src/: ${house.rooms.length} rooms, ${house.files} files, ${house.imports} imports between files`);
  out.push('', `Floors as drawn from the imports (lowest first; a room sits one floor above the highest room it imports; the upward imports below left out):`);
  house.drawn.forEach((rooms, i) => out.push(`  ${String(i + 1).padStart(2)}  ${rooms.join(', ')}`));
  out.push('', 'Floors as intended (lowest first; imports only go down, or stay on their floor):');
  house.floors.forEach((floor, i) => out.push(`  ${String(i + 1).padStart(2)}  ${floor.rooms.join(', ')}  (${floor.why})`));
  out.push('', `Upward imports: ${house.upward.length}`);
  for (const e of house.upward) out.push(`  ${e.from} → ${e.to} (${e.kind})${e.reason ? `: allowed, ${e.reason}` : ': NOT ALLOWED'}`);
  const crossing = house.fileCycles.filter((c) => c.rooms.length > 1);
  out.push('', `Circles of files: ${house.fileCycles.length} (${crossing.length} spanning rooms)`);
  for (const c of house.fileCycles) out.push(`  ${c.files.length} files in ${c.rooms.join(', ')}: ${c.circle.join(' → ')}`);
  out.push('', `Circles of rooms: ${house.roomCycles.length} (one names every room it joins, and one circle through them)`);
  for (const c of house.roomCycles) out.push(`  ${c.rooms.length} rooms (${c.rooms.join(', ')}): ${c.circle.join(' → ')}`);
  out.push('', house.problems.length === 0 ? 'No problems.' : `Problems: ${house.problems.length}`);
  for (const p of house.problems) out.push(`  ${p}`);
  return out.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--src');
  const srcDir = resolve(at >= 0 ? args[at + 1] : join(dirname(fileURLToPath(import.meta.url)), '..', 'src'));
  const house = analyze({ srcDir });
  process.stdout.write(`${args.includes('--json') ? JSON.stringify(house, null, 2) : print(house)}\n`);
  if (args.includes('--check') && house.problems.length > 0) process.exitCode = 1;
}
