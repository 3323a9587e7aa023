/**
 * A Map that keeps the `max` keys set most recently: setting a key makes it the newest, and past `max` the oldest is
 * forgotten.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.max) super.delete(this.keys().next().value as K);
    return this;
  }
}
