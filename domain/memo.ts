/**
 * A pure function of one primitive argument, remembered for the last `max` distinct arguments seen
 * (forgotten all at once past that, so the memory stays bounded whatever the input). For the readings
 * a census repeats on every row: a file of ten thousand rows names a few dozen dates and amounts.
 */
export function rememberLast<K extends string | bigint, V>(fn: (key: K) => V, max = 1_024): (key: K) => V {
  const seen = new Map<K, V>();
  return (key) => {
    const known = seen.get(key);
    if (known !== undefined || seen.has(key)) return known as V;
    if (seen.size >= max) seen.clear();
    const value = fn(key);
    seen.set(key, value);
    return value;
  };
}
