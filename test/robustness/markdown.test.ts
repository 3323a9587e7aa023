import fc from 'fast-check';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { markdownCode, markdownText } from '../../src/output/markdown.js';
import { send, simulator } from '../helpers.js';
import { control, runs } from './support.js';

/**
 * Class: markup a client gets into the Markdown report (the job summary of a CI run). The scenario name (which the
 * loopback control API lets any client set), finding details and hint texts are text: every character that can
 * start markup is escaped, so no link, image, HTML, emphasis or table cell is made of them; and a code span (a
 * finding's id) holds any text, backticks included. Checked with a GFM renderer.
 */

/** Text as a Markdown renderer shows it: the rendered HTML's text, entities decoded. */
function shownText(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

const MARKUP = /<(a|img|strong|em|del|code|h\d|ul|ol|li|table|script|iframe|blockquote|pre|input)\b/;

const HOSTILE = [
  '[x](https://evil.example) ![i](https://evil.example/i.png)',
  '<img src=x onerror=alert(1)> <b>bold</b> &amp; &#x41;',
  '**bold** __b__ *em* _em_ ~~struck~~ ~x~',
  '# heading',
  '- item',
  '1. item',
  '> quoted',
  '`code` ``two``',
  'www.evil.example and https://evil.example/x and a@evil.example',
  '| a | b |',
  'back\\slash \\[ \\`',
  '[ref]: https://evil.example',
  '<https://evil.example>',
  ':smile: @someone #12',
];

describe('Markdown: text never becomes markup, and a code span holds any text', () => {
  it('markdownText: each hostile text renders as exactly itself, and as no markup', () => {
    for (const text of HOSTILE) {
      const html = marked.parse(`before ${markdownText(text)} after`, { gfm: true }) as string;
      expect(html, text).not.toMatch(MARKUP);
      expect(shownText(html), text).toBe(`before ${text} after`);
    }
  });

  it('markdownText: any printable text renders as itself (line breaks as spaces), in a table cell too', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'ab `*_[]()!<>&#|\\~:@.-+=\n'.split('')), maxLength: 40 }),
        (text) => {
          const html = marked.parse(`| x |\n|---|\n| ${markdownText(text)} |\n`, { gfm: true }) as string;
          const cell = /<tbody>\s*<tr>\s*<td>([\s\S]*?)<\/td>\s*<\/tr>\s*<\/tbody>/.exec(html);
          expect(cell, html).not.toBeNull();
          expect(cell![1]).not.toMatch(MARKUP);
          expect(shownText(cell![1]), JSON.stringify(text)).toBe(text.replace(/\n+/g, ' ').trim());
        },
      ),
      { numRuns: runs(2000) },
    );
  });

  it('markdownCode: a code span that holds any text, backticks and pipes included, in a table cell too', () => {
    for (const text of ['a', '`', '``', 'a`b', '`a`', 'a | b', ' x ']) {
      const html = marked.parse(`| x |\n|---|\n| ${markdownCode(text)} |\n`, { gfm: true }) as string;
      const code = /<code>([\s\S]*?)<\/code>/.exec(html);
      expect(code, text).not.toBeNull();
      expect(code![1].replace(/&#39;/g, "'").replace(/&amp;/g, '&'), text).toBe(text);
    }
  });

  it('the report: a scenario name with links, images, HTML and emphasis is shown as text', async () => {
    const sim = await simulator();
    for (const name of HOSTILE) {
      expect((await control(sim, 'POST', '/__sim/scenario', { name, hints: true })).status, name).toBe(200);
      const md = (await control(sim, 'GET', '/__sim/report')).text;
      const line = md.split('\n').find((l) => l.startsWith('mfa-sim '))!;
      const html = marked.parse(line, { gfm: true }) as string;
      expect(html, name).not.toMatch(MARKUP);
      expect(shownText(html)).toContain(`scenario ${name}, `);
    }
  });

  it('the report: a hint quoting a backtick (not hexadecimal) keeps its table whole, and the hint holds the character', async () => {
    const sim = await simulator();
    const r = await send(sim, '/v1/svc/time', {
      method: 'GET',
      mutate: (h) =>
        (h.Authorization = h.Authorization.replace(
          /signature=[0-9a-f]{128}/,
          `signature=${'a'.repeat(64)}\`${'b'.repeat(63)}`,
        )),
    });
    expect(r.json.code).toBe(-4027);
    expect(r.json.message).toContain('128 characters, but `` ` `` at position 65 is not hexadecimal');
    const md = sim.report('markdown');
    const html = marked.parse(md, { gfm: true }) as string;
    const hints = html.match(/<table>[\s\S]*?<\/table>/g)!.at(-1)!;
    const cells = /<tbody>\s*<tr>([\s\S]*?)<\/tr>/.exec(hints)![1].match(/<td[^>]*>[\s\S]*?<\/td>/g)!;
    expect(cells).toHaveLength(6);
    expect(shownText(cells[5])).toBe('128 characters, but `` ` `` at position 65 is not hexadecimal');
  });
});
