// Text that came from elsewhere (a customer's device, the service) made safe to print on a
// terminal. A return request's note or reason is written by the customer: an ESC in it could
// clear the merchant's screen, retitle the window or write the clipboard, a carriage return
// could overwrite what was printed, and a bidirectional override reorders what is shown.
// Each such character becomes a visible escape instead; tabs and line breaks are kept.

// C0 controls but \t and \n, DEL, C1 controls, the bidirectional marks and overrides, the
// line and paragraph separators, and the zero-width no-break space.
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** `text` with every control character and bidi override written as `\xNN` or `\uNNNN`. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
