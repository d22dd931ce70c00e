/**
 * C strings for the C library's calls: a NUL-terminated copy of a string
 * (`const char *`) and a NULL-terminated array of them (argv, envp).
 *
 * @module
 */

const encoder = new TextEncoder();

/** A NUL-terminated copy of `text` for passing as `const char *`. */
export function cString(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(`${text}\0`);
}

/**
 * A NULL-terminated `char *[]` (argv, envp). The strings are returned too:
 * they must stay referenced for as long as the array is in use.
 */
export function cStringArray(
  items: string[],
): { array: BigUint64Array<ArrayBuffer>; strings: Uint8Array[] } {
  const strings = items.map(cString);
  const array = new BigUint64Array(items.length + 1);
  strings.forEach((s, i) => array[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(s))));
  return { array, strings };
}
