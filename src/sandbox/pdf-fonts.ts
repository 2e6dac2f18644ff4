// The fonts behind DejaVu Sans in the emailed PDF, for what it has no glyph for: Noto Emoji
// (monochrome outlines, which a PDF can embed; npm `@expo-google-fonts/noto-emoji`, OFL),
// then the system's fonts that fontconfig (`fc-match`) sorts by coverage of what is still
// missing (CJK, other scripts: whatever the machine has). A colour font (CBDT/sbix bitmaps,
// COLR layers) has no outlines to embed and is passed over. Each is read only when a
// document holds text that needs it, and kept for the next document.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** The part of a fontkit font the PDF uses to choose fonts. */
export interface FontkitFont {
  readonly postscriptName: string;
  hasGlyphForCodePoint(codePoint: number): boolean;
  layout(text: string): { glyphs: { id: number; codePoints: number[] }[] };
  readonly directory: { tables: Record<string, unknown> };
}

export interface FallbackFont {
  /** The bytes pdfkit embeds, and for a collection (.ttc) the PostScript name of the face. */
  src: Buffer;
  face?: string | undefined;
  font: FontkitFont;
}

interface Fontkit {
  create(buffer: Buffer, postscriptName?: string): FontkitFont | { fonts: FontkitFont[] };
}

const require = createRequire(import.meta.url);
// fontkit as pdfkit itself resolves it: the same copy that embeds the fonts.
const fontkit = (): Fontkit => createRequire(require.resolve('pdfkit'))('fontkit') as Fontkit;

const EMOJI_FONT = '@expo-google-fonts/noto-emoji/400Regular/NotoEmoji_400Regular.ttf';
/** System fonts opened at most per document: fontconfig's best few for what is missing. */
const MAX_SYSTEM_FONTS = 6;

let emoji: Promise<FallbackFont | undefined> | undefined;
const systemFonts = new Map<string, Promise<FallbackFont | undefined>>();

/**
 * The fonts, in order, that draw some of `missing` (code points DejaVu Sans lacks); what none
 * of them has stays missing, for the caller to replace and count.
 */
export async function fallbackFonts(missing: ReadonlySet<number>): Promise<FallbackFont[]> {
  if (missing.size === 0) return [];
  const chain: FallbackFont[] = [];
  let left = [...missing];
  emoji ??= readFile(require.resolve(EMOJI_FONT)).then((src) => opened(src, undefined), () => undefined);
  const first = await emoji;
  if (first && left.some((cp) => first.font.hasGlyphForCodePoint(cp))) {
    chain.push(first);
    left = left.filter((cp) => !first.font.hasGlyphForCodePoint(cp));
  }
  if (left.length === 0) return chain;
  for (const { file, index } of (await fontconfigCandidates(left)).slice(0, MAX_SYSTEM_FONTS)) {
    const key = `${file}#${index}`;
    if (!systemFonts.has(key)) systemFonts.set(key, readFile(file).then((src) => opened(src, index), () => undefined));
    const candidate = await systemFonts.get(key);
    if (!candidate || !left.some((cp) => candidate.font.hasGlyphForCodePoint(cp))) continue;
    chain.push(candidate);
    left = left.filter((cp) => !candidate.font.hasGlyphForCodePoint(cp));
    if (left.length === 0) break;
  }
  return chain;
}

/** A font with outlines pdfkit can embed; undefined for a colour or unreadable one. */
function opened(src: Buffer, index: number | undefined): FallbackFont | undefined {
  try {
    const made = fontkit().create(src);
    const font = 'fonts' in made ? made.fonts[index ?? 0] : made;
    if (!font) return undefined;
    const tables = font.directory.tables;
    if (!('glyf' in tables || 'CFF ' in tables || 'CFF2' in tables) || 'CBDT' in tables || 'sbix' in tables || 'COLR' in tables) return undefined;
    return { src, face: 'fonts' in made ? font.postscriptName : undefined, font };
  } catch {
    return undefined;
  }
}

/** fontconfig's fonts sorted by how much of `codePoints` they cover; none without fontconfig. */
function fontconfigCandidates(codePoints: readonly number[]): Promise<{ file: string; index: number }[]> {
  const charset = codePoints.map((cp) => cp.toString(16)).join(' ');
  return new Promise((resolve) => {
    execFile('fc-match', ['-s', '--format', '%{file}\t%{index}\n', `:charset=${charset}`], { timeout: 5_000, maxBuffer: 4 << 20 }, (error, stdout) => {
      if (error) return resolve([]);
      resolve(
        stdout
          .split('\n')
          .map((line) => line.split('\t'))
          .filter((parts): parts is [string, string] => parts.length === 2 && /\.(ttf|otf|ttc|otc)$/i.test(parts[0] ?? ''))
          .map(([file, index]) => ({ file, index: Number(index) || 0 })),
      );
    });
  });
}
