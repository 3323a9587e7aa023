/**
 * What the client doctor says about one refused request: a stable id (reports and tests name it) and the fix. A file
 * of its own: the dashboard's browser scripts read journal entries, which carry hints, and must not load the doctor.
 */
export interface Hint {
  id: string;
  text: string;
}
