// The queue screen's list without a terminal: the cursor and the marks follow their request
// over refreshes and filters; the window keeps the cursor in sight; the keys offered follow
// the moves table; escape sequences are the keys a list moves with.
import { describe, expect, it } from 'vitest';
import { decisionsFor, refusal } from '../../src/queue-screen/keys.js';
import { ListState, windowTop } from '../../src/queue-screen/list-state.js';
import { keysOf } from '../../src/io/terminal-keys.js';

const row = (id: string, status = 'PENDING', text = id) => ({ id, requestId: id, status, text });

describe('ListState', () => {
  it('keeps the cursor on its request when a refresh adds or reorders rows, and at its place when the request leaves', () => {
    const s = new ListState();
    s.setRows([row('a'), row('b'), row('c')]);
    s.move(1);
    expect(s.selected()?.id).toBe('b');
    s.setRows([row('z'), row('a'), row('b'), row('c')]);
    expect(s.selected()?.id).toBe('b');
    s.setRows([row('z'), row('a'), row('c')]);
    expect(s.selected()?.id).toBe('c');
    s.move(10);
    expect(s.cursor()).toBe(2);
    s.move(-10);
    expect(s.cursor()).toBe(0);
  });

  it('filters by the text shown, case-insensitively; clearing the filter keeps the cursor on the request it is on', () => {
    const s = new ListState();
    s.setRows([row('a', 'PENDING', 'a milk'), row('b', 'PENDING', 'b bread'), row('c', 'PENDING', 'c Milk')]);
    s.setFilter('MILK');
    expect(s.visible().map((r) => r.id)).toEqual(['a', 'c']);
    s.move(1);
    s.setFilter('');
    expect(s.selected()?.id).toBe('c');
  });

  it('marks with space (the cursor stays), acts on the marked in view, else the selected; a row that leaves loses its mark', () => {
    const s = new ListState();
    s.setRows([row('a'), row('b'), row('c')]);
    expect(s.targets().map((r) => r.id)).toEqual(['a']);
    s.toggleMark();
    expect(s.selected()?.id).toBe('a');
    s.move(1);
    s.toggleMark();
    expect(s.selected()?.id).toBe('b');
    expect(s.targets().map((r) => r.id)).toEqual(['a', 'b']);
    s.setRows([row('b'), row('c')]);
    expect([...s.marked]).toEqual(['b']);
  });

  it('windowTop scrolls as little as it can to keep the cursor in sight', () => {
    expect(windowTop(0, 5, 10, 40)).toBe(0);
    expect(windowTop(0, 12, 10, 40)).toBe(3);
    expect(windowTop(10, 4, 10, 40)).toBe(4);
    // A taller window after a resize shows more from the top.
    expect(windowTop(30, 35, 20, 40)).toBe(20);
  });
});

describe('the decision keys', () => {
  it('offers only what the moves table allows, and says why a refused key is refused', () => {
    expect(decisionsFor('PENDING')).toEqual(['a', 'p', 'r']);
    expect(decisionsFor('ACCEPTED')).toEqual(['i', 'c']);
    expect(decisionsFor('PARTIALLY_ACCEPTED')).toEqual(['i', 'c']);
    expect(decisionsFor('REJECTED')).toEqual([]);
    expect(refusal('a', 'PENDING', 'x')).toBeUndefined();
    expect(refusal('i', 'PENDING', '5fd8139a')).toBe('cannot issue 5fd8139a: it is PENDING; issue moves ACCEPTED or PARTIALLY_ACCEPTED: accept it first (a, or p for a part)');
    expect(refusal('r', 'COMPLETED', '5fd8139a')).toBe('cannot reject 5fd8139a: it is COMPLETED; reject moves PENDING');
  });
});

describe('keysOf', () => {
  it('names the keys a list moves with, as xterm and tmux send them', () => {
    expect(keysOf('\x1b[A\x1b[B\x1b[5~\x1b[6~\x1b[H\x1b[F\x1b[1~\x1b[4~\x1bOA')).toEqual(['up', 'down', 'pageup', 'pagedown', 'home', 'end', 'home', 'end', 'up']);
    expect(keysOf('j \r\x7f\x1b')).toEqual(['j', ' ', 'enter', 'backspace', 'escape']);
  });
});
