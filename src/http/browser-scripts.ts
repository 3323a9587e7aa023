import { builtText } from '../world/lazy.js';

/**
 * The pages' browser scripts (src/browser/<name>.ts, built into dist/browser/ by tsup.config.ts), carried inline by
 * the page that runs them, and the settings a page hands its script.
 */

/** A page's browser script, to carry inline: no `</script>` in it ends the element early. */
export function browserScript(name: 'dashboard' | 'phone'): string {
  return builtText(`browser/${name}.js`).replace(/<\/(script)/gi, '<\\/$1');
}

/** A value as JSON inside a page's `<script type="application/json">`: no `<` in it can close the element. */
export function jsonInPage(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
