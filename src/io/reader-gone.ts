// A reader that stops early (`svc … | head -1`) closes stdout. svc then ends quietly with
// exit 0 (src/main.ts): right for a command that only prints. A command still doing work it
// was asked for (a batch issuing receipts) claims that moment instead, so that a batch cut
// short is not reported as done.
let claimant: (() => void) | undefined;

/** While claimed, a closed stdout calls `onGone` instead of ending the process; call the result to release. */
export function claimStdoutReaderGone(onGone: () => void): () => void {
  claimant = onGone;
  return () => {
    if (claimant === onGone) claimant = undefined;
  };
}

/** For main.ts: true when a command took the closed stdout over (and was told), false to end quietly. */
export function stdoutReaderGone(): boolean {
  const onGone = claimant;
  if (onGone === undefined) return false;
  claimant = undefined;
  onGone();
  return true;
}
