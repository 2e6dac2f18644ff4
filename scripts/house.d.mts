// Types of scripts/house.mjs, for test/house.test.ts.
export interface Floor {
  rooms: string[];
  why: string;
}
export interface Edge {
  from: string;
  to: string;
  kind: 'static' | 'type' | 'dynamic' | 're-export';
}
export interface House {
  files: number;
  imports: number;
  rooms: string[];
  edges: Edge[];
  drawn: string[][];
  floors: Floor[];
  roomEdges: Record<string, number>;
  upward: (Edge & { reason: string | undefined })[];
  fileCycles: { files: string[]; rooms: string[]; circle: string[] }[];
  roomCycles: { rooms: string[]; circle: string[] }[];
  problems: string[];
}
export const FLOORS: Floor[];
export const ALLOWED: Record<string, string>;
export function roomOf(file: string): string;
export function importsOf(text: string, fileName?: string): { specifier: string; kind: Edge['kind'] }[];
export function stronglyConnected<T>(graph: Map<T, Iterable<T>>): T[][];
export function analyze(options: { srcDir: string; floors?: Floor[]; allowed?: Record<string, string> }): House;
