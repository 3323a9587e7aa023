/** Text for HTML (every page: the phone, the status pages, the dashboard), in element content and attribute values. */
export function htmlText(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
