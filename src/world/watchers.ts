/** Those who follow something as it changes; one that throws fails neither the change nor the watchers after it. */
export class Watchers<T> {
  private readonly watchers = new Set<(value: T) => void>();

  /** Calls `watcher` with every change from now on; returns how to stop. */
  add(watcher: (value: T) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  tell(value: T): void {
    for (const watcher of this.watchers) {
      try {
        watcher(value);
      } catch {
        // A watcher's failure is its own.
      }
    }
  }
}
