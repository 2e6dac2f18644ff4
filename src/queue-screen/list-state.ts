// The queue screen's list as a person moves through it: the rows of the last refresh, the
// filter typed after `/`, the cursor and the marked rows. The cursor and the marks follow a
// request by its ID, so a refresh that adds, reorders or drops rows keeps them on the same
// requests (a row that left the view loses its mark). Pure: no terminal, no service.

export interface ListRow {
  id: string;
  status: string;
  /** What `/` searches: the row's cells as shown, joined. */
  text: string;
  /** More that `/` finds the row by (its customer, as `--customer` matches one). */
  matches?: (needle: string) => boolean;
}

export class ListState<T extends ListRow> {
  private rows: readonly T[] = [];
  private cursorId: string | undefined;
  private cursorIndex = 0;
  /** Whether `/` is being typed. */
  typing = false;
  filter = '';
  readonly marked = new Set<string>();

  /** The rows of a refresh; the cursor stays on its request, else at the same place. */
  setRows(rows: readonly T[]): void {
    this.rows = rows;
    const ids = new Set(rows.map((r) => r.id));
    for (const id of this.marked) if (!ids.has(id)) this.marked.delete(id);
    this.settle();
  }

  /** The rows the filter lets through, in order. */
  visible(): T[] {
    const needle = this.filter.trim().toLowerCase();
    return needle === '' ? [...this.rows] : this.rows.filter((r) => r.text.toLowerCase().includes(needle) || (r.matches?.(needle) ?? false));
  }

  /** How many rows the list holds, the filter aside. */
  total(): number {
    return this.rows.length;
  }

  cursor(): number {
    return this.cursorIndex;
  }

  selected(): T | undefined {
    return this.visible()[this.cursorIndex];
  }

  /** The marked rows still in view, else the selected one: what a bulk decision acts on. */
  targets(): T[] {
    const marked = this.visible().filter((r) => this.marked.has(r.id));
    if (marked.length > 0) return marked;
    const selected = this.selected();
    return selected === undefined ? [] : [selected];
  }

  /** Moves the cursor by `delta` rows (clamped to the list). */
  move(delta: number): void {
    this.moveTo(this.cursorIndex + delta);
  }

  moveTo(index: number): void {
    const rows = this.visible();
    this.cursorIndex = Math.max(0, Math.min(rows.length - 1, index));
    this.cursorId = rows[this.cursorIndex]?.id;
  }

  /** Marks or unmarks the selected row; the cursor stays on it (a mark lands where the cursor is seen). */
  toggleMark(): void {
    const selected = this.selected();
    if (selected === undefined) return;
    if (!this.marked.delete(selected.id)) this.marked.add(selected.id);
  }

  setFilter(text: string): void {
    this.filter = text;
    this.settle();
  }

  /** Back to where the cursor's request is now, or the nearest place when it left the view. */
  private settle(): void {
    const rows = this.visible();
    const at = this.cursorId === undefined ? -1 : rows.findIndex((r) => r.id === this.cursorId);
    this.moveTo(at === -1 ? this.cursorIndex : at);
  }
}

/** The first row shown in a window of `height` rows that keeps row `cursor` in sight, moving as little as it can from `top`. */
export function windowTop(top: number, cursor: number, height: number, total: number): number {
  if (height <= 0) return 0;
  let next = Math.min(top, Math.max(0, total - height));
  if (cursor < next) next = cursor;
  if (cursor >= next + height) next = cursor - height + 1;
  return Math.max(0, next);
}
