import { describe, expect, it } from 'vitest';
import { htmlText } from '../../src/output/html.js';
import { jsonText } from '../../src/output/json.js';
import { codeSpan } from '../../src/output/markdown.js';
import { xmlText } from '../../src/output/xml.js';

/**
 * The escaping functions of output/, one per output, word for word. What reaches each output from a client, through
 * the simulator: robustness/terminal.test.ts, markdown.test.ts, and the JUnit and page suites.
 */
describe('one escaping function per output', () => {
  it('HTML: the five characters that can end text or an attribute, as character references', () => {
    expect(htmlText(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;amp;&#60;/a&#62;',
    );
    expect(htmlText('plain é 🙂')).toBe('plain é 🙂');
    expect(htmlText(42)).toBe('42');
  });

  it('XML: the five special characters escaped, and characters XML 1.0 cannot hold dropped', () => {
    expect(xmlText(`<x a="1" b='2'>&</x>`)).toBe('&lt;x a=&quot;1&quot; b=&apos;2&apos;&gt;&amp;&lt;/x&gt;');
    expect(xmlText('a\u0000b\u0001c\u0008d\u000be\uffff\ud800f\tg\nh\ri\u{1f642}')).toBe('abcdef\tg\nh\ri\u{1f642}');
  });

  it('JSON: JSON.stringify, with what a terminal acts on that it leaves raw escaped; the values unchanged', () => {
    const value = { a: '\u001b[2J', b: 'x\u009by\u007f\u202e\u2028', n: 1 };
    const text = jsonText(value);
    expect(text).toBe('{"a":"\\u001b[2J","b":"x\\u009by\\u007f\\u202e\\u2028","n":1}');
    expect(JSON.parse(text)).toEqual(value);
    expect(jsonText({ a: 1 }, undefined, 2)).toBe('{\n  "a": 1\n}');
    expect(jsonText({ s: 'secret' }, (_k, v) => (v === 'secret' ? '[secret]' : v))).toBe('{"s":"[secret]"}');
    // A value JSON has no text for is written as null.
    expect(jsonText(undefined)).toBe('null');
  });

  it('JSON: a string alone is written exactly as inside an object, whichever characters it holds', () => {
    // The object's text goes through JSON.stringify and the escaping of what it leaves raw; a string alone may take a
    // shorter way (plain ASCII), which must give the same text.
    const asInObject = (s: string) => jsonText({ v: s }).slice('{"v":'.length, -1);
    const samples = ['', 'sim-1', 'http://127.0.0.1:8080/status?code=-4037', '{"utc-time":"1795618210"}', 'a\\b', '"'];
    for (let c = 0; c < 0x3000; c++) samples.push(`x${String.fromCharCode(c)}y`);
    samples.push('\ud800', 'a\u{1f642}b', '\u2028\u2029', '~\u007f');
    for (const s of samples) {
      expect(jsonText(s)).toBe(asInObject(s));
      expect(JSON.parse(jsonText(s))).toBe(s);
    }
    expect(jsonText('x\u009by')).toBe('"x\\u009by"');
    expect(jsonText('say "hi"')).toBe('"say \\"hi\\""');
  });

  it('Markdown: a code span holds any text', () => {
    expect(codeSpan('a')).toBe('`a`');
    expect(codeSpan('`')).toBe('`` ` ``');
    expect(codeSpan('a``b')).toBe('```a``b```');
    expect(codeSpan(' a')).toBe('`  a `');
    expect(codeSpan('a ')).toBe('` a  `');
    // Only spaces: a renderer keeps them, no padding needed.
    expect(codeSpan('   ')).toBe('`   `');
    expect(codeSpan('a\r\n\nb')).toBe('`a b`');
    // No code span is empty.
    expect(codeSpan('')).toBe('');
  });
});
