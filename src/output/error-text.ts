/** The message of something thrown, whatever was thrown (an object whose toString throws included). */
export function errorText(e: unknown): string {
  try {
    return e instanceof Error ? String(e.message) : String(e);
  } catch {
    return 'an exception that cannot be shown';
  }
}
