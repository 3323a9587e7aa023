/**
 * `make`, remembering its last key and what it made of it: for what many answers in a row share (the ISO time of a
 * millisecond, the time's message of a second, an answer's message as JSON text), made once instead of for each.
 */
export function rememberLast<K, V>(make: (key: K) => V): (key: K) => V {
  let last: { key: K; value: V } | undefined;
  return (key) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: made again every time, the value is the same
    if (last === undefined || key !== last.key) last = { key, value: make(key) };
    return last.value;
  };
}
