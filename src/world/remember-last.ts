/**
 * `make`, remembering its last key and what it made of it: for what many answers in a row share (the ISO time of a
 * millisecond, the time's message of a second, an answer's message as JSON text), made once instead of for each.
 */
export function rememberLast<K, V>(make: (key: K) => V): (key: K) => V {
  // Two variables rather than one object: a key that changes on every call (a new challenge's message) would
  // otherwise cost an object each time.
  let made = false;
  let lastKey: K;
  let lastValue: V;
  return (key) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: made again every time, the value is the same
    if (!made || key !== lastKey) {
      lastValue = make(key);
      lastKey = key;
      made = true;
    }
    return lastValue;
  };
}
