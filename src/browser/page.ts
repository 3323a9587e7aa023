// What every part of the dashboard's script uses.

/** What the page hands its script (#dashboard-config): the colour class of each code, the log's first rows. */
export const config = JSON.parse(document.getElementById('dashboard-config')!.textContent) as {
  classes: Record<string, string>;
  logRows: number;
};
export const $ = <T extends HTMLElement = HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
export const codeClass = (code: number | undefined) => (code == null ? 'warn' : (config.classes[code] ?? 'err'));

/** An element with these attributes (`text`: its text) and children. */
export function el(tag: string, attrs: Record<string, string> = {}, ...kids: (Node | string | undefined)[]) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== undefined) e.append(kid);
  return e;
}

export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Calls the control API; its JSON error is thrown as an Error. */
export async function callControlApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers = body === undefined ? undefined : { 'content-type': 'application/json' };
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = (await r.json().catch(() => ({}))) as T & { error?: string };
  if (!r.ok) throw new Error(j.error ?? `HTTP ${r.status}`);
  return j;
}

let flashTimer: ReturnType<typeof setTimeout> | undefined;
export function flash(message: string, bad = false): void {
  const f = $('#flash');
  f.textContent = message;
  f.className = `pill ${bad ? 'err' : 'info'}`;
  f.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => (f.hidden = true), 6000);
}
