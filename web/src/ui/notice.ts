// One polite status line at the top (role=status): waits, errors that are not a form's own.
export function notice(text: string): void {
  const el = document.getElementById('notice');
  if (el) el.textContent = text;
}

/** Clear the status line if it still says `text` (a later notice is left as it is). */
export function clearNotice(text: string): void {
  const el = document.getElementById('notice');
  if (el && el.textContent === text) el.textContent = '';
}
